"""A Keras model called eagerly on tensors, outside any tape (keras-io's sequential_model guide, d2l's
TensorFlow chapters: `print(net(X))`), is drawn as a torch module's forward is, although TF records
no gradient there; what the program computes does not change (a later tape does not see those ops)."""
from engine.runner import run_user_code

SEQUENTIAL = """import tensorflow as tf
net = tf.keras.Sequential([tf.keras.layers.Dense(4, activation="relu"), tf.keras.layers.Dense(1)])
X = tf.random.uniform((2, 3))
print(net(X).shape)
"""


def forward_ops(graph) -> list:
    return [n["op"] for n in graph["forward"]["nodes"] if n.get("kind") in ("op", "output")]


def test_a_model_called_inside_an_expression_is_drawn():
    record = run_user_code(SEQUENTIAL)
    assert record["ok"] and record["stdout"] == "(2, 1)\n", record["error"]
    (graph,) = record["graphs"]
    assert graph["title"] == "net(…) (forward only: backward() not called)"
    assert forward_ops(graph).count("matmul") == 2 and "relu" in forward_ops(graph)
    labels = {n.get("label") for n in graph["forward"]["nodes"]}
    assert {"sequential/dense/kernel", "sequential/dense_1/bias"} <= labels, labels


def test_a_subclassed_layer_held_in_a_variable_is_drawn_by_that_name():
    record = run_user_code("""import tensorflow as tf
class Centered(tf.keras.layers.Layer):
    def call(self, x):
        return x - tf.reduce_mean(x)
net = tf.keras.Sequential([tf.keras.layers.Dense(3), Centered()])
Y = net(tf.ones((2, 5)))
""")
    assert record["ok"], record["error"]
    assert [g["title"] for g in record["graphs"]] == ["Y (forward only: backward() not called)"]
    assert {"matmul", "mean", "sub"} <= set(forward_ops(record["graphs"][0]))


def test_a_later_tape_sees_only_what_it_recorded_and_is_drawn_instead():
    record = run_user_code(SEQUENTIAL + """w = tf.Variable(2.0)
y = net(X)                                  # drawn eagerly: has a history the tape below did not record
with tf.GradientTape(persistent=True) as tape:
    loss = tf.reduce_sum(y * w)
print(float(tape.gradient(loss, w)) == float(tf.reduce_sum(y)))
print(tape.gradient(loss, net.trainable_variables))
""")
    assert record["ok"], record["error"]
    assert record["stdout"].splitlines()[1:] == ["True", "[None, None, None, None]"]
    assert record["graphs"] and all("forward only" not in g["title"] for g in record["graphs"])


def test_fit_and_traced_calls_are_not_drawn_twice():
    record = run_user_code("""import numpy as np, tensorflow as tf
net = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
net.compile(optimizer="sgd", loss="mse")
net.fit(np.ones((4, 2), "float32"), np.zeros((4, 1), "float32"), epochs=1, verbose=0)
f = tf.function(lambda x: net(x))
print(f(tf.ones((1, 2))).shape)
""")
    assert record["ok"], record["error"]
    assert record["graphs"] and all("forward only" not in g["title"] for g in record["graphs"])
