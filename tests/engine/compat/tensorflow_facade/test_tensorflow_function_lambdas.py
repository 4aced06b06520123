"""tf.function bodies with lambdas (explicit tf.cond / tf.while_loop) and `with tf.GradientTape() as tape`."""

CODE = """import tensorflow as tf

@tf.function
def f(x):
    return tf.cond(tf.reduce_sum(x) > 0, lambda: x * 2.0, lambda: -x)

@tf.function
def count_to(n):
    return tf.while_loop(lambda i: i < n, lambda i: i + 1, [tf.constant(0)])

print(f(tf.constant([1.0, 2.0])))
print(f(tf.constant([-1.0, -2.0])))
print(count_to(tf.constant(5)))

w = tf.Variable([1.0, -2.0])

@tf.function
def train_step(x):
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(w * x * w)
    w.assign_sub(0.1 * tape.gradient(loss, w))
    return loss

print(train_step(tf.constant([1.0, 1.0])))
print(w.numpy())
"""


def test_lambdas_and_tapes_inside_tf_function(run):
    rec = run(CODE)
    assert rec["ok"], rec["error"]
    assert rec["stdout"].splitlines() == [
        "tf.Tensor([2. 4.], shape=(2,), dtype=float32)",
        "tf.Tensor([1. 2.], shape=(2,), dtype=float32)",
        "[<tf.Tensor: shape=(), dtype=int32, numpy=5>]",
        "tf.Tensor(5.0, shape=(), dtype=float32)",
        "[ 0.8 -1.6]",
    ]
    captures = [g["capture"] for g in rec["graphs"]]
    assert captures.count("function") >= 3


def test_a_lambda_with_defaults_is_refused_with_its_line(run):
    rec = run("import tensorflow as tf\n\n@tf.function\ndef f(x):\n    g = lambda y=1.0: x * y\n    return g()\n\n"
              "print(f(tf.constant(1.0)))\n")
    assert not rec["ok"] and "plain positional arguments" in rec["error"]["message"]
