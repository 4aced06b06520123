"""tf.keras basics: Dense/Sequential/Model variables (Keras 3's names), Keras' optimizer rules, losses."""
import numpy as np
import pytest

import engine.compat.tensorflow as tf
from engine.errors import UnsupportedError


def test_dense_layer_is_matmul_bias_activation():
    layer = tf.keras.layers.Dense(3, activation="relu", name="d")
    x = tf.constant([[1.0, -2.0]])
    y = layer(x)
    k, b = layer.kernel.numpy(), layer.bias.numpy()
    np.testing.assert_allclose(y.numpy(), np.maximum(x.numpy() @ k + b, 0), rtol=1e-6)
    # Keras 3 (tf.keras since TF 2.16): a weight's name is short, its path says whose it is
    assert [v.name for v in layer.trainable_variables] == ["kernel", "bias"]
    assert [v.path for v in layer.trainable_variables] == ["d/kernel", "d/bias"]
    assert k.shape == (2, 3) and np.all(b == 0)


def test_models_collect_their_layers_variables():
    class Net(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.hidden = tf.keras.layers.Dense(4, activation="tanh")
            self.out = tf.keras.layers.Dense(2)

        def call(self, x):
            return self.out(self.hidden(x))

    net = Net()
    assert net(tf.ones([3, 5])).shape == [3, 2]
    assert [tuple(v.shape) for v in net.trainable_variables] == [(5, 4), (4,), (4, 2), (2,)]
    seq = tf.keras.Sequential([tf.keras.layers.Dense(2), tf.keras.layers.Dense(1)])
    assert seq(tf.ones([1, 3])).shape == [1, 1] and len(seq.trainable_variables) == 4
    with pytest.raises(UnsupportedError, match="nesterov|amsgrad"):
        tf.keras.optimizers.Adam(amsgrad=True)


def _quadratic_steps(opt, steps: int) -> list:
    w = tf.Variable(5.0)
    values = []
    for _ in range(steps):
        with tf.GradientTape() as tape:
            loss = (w - 2.0) ** 2
        opt.apply_gradients([(tape.gradient(loss, w), w)])
        values.append(float(w))
    return values


def test_sgd_rules_by_hand():
    assert _quadratic_steps(tf.keras.optimizers.SGD(0.1), 2) == pytest.approx([4.4, 3.92])
    # momentum 0.9: v1 = -0.6, w = 4.4; g = 4.8, v2 = 0.9 * -0.6 - 0.48 = -1.02, w = 3.38
    assert _quadratic_steps(tf.keras.optimizers.SGD(0.1, momentum=0.9), 2) == pytest.approx([4.4, 3.38])


def test_adam_rule_by_hand():
    lr, b1, b2, eps = 0.1, 0.9, 0.999, 1e-7
    w, m, v, expected = 5.0, 0.0, 0.0, []
    for t in (1, 2, 3):
        g = 2 * (w - 2.0)
        m += (g - m) * (1 - b1)
        v += (g * g - v) * (1 - b2)
        w -= lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t) * m / (np.sqrt(v) + eps)
        expected.append(w)
    assert _quadratic_steps(tf.keras.optimizers.Adam(lr), 3) == pytest.approx(expected, rel=1e-5)


def test_losses_against_numpy():
    y_true = np.array([[1.0, 0.0], [0.0, 1.0]], np.float32)
    y_pred = np.array([[0.8, 0.2], [0.3, 0.7]], np.float32)
    mse = tf.keras.losses.MeanSquaredError()(y_true, y_pred)
    assert float(mse) == pytest.approx(((y_true - y_pred) ** 2).mean())
    cce = tf.keras.losses.CategoricalCrossentropy()(y_true, y_pred)
    assert float(cce) == pytest.approx(-(y_true * np.log(y_pred)).sum(1).mean(), rel=1e-5)
    logits = np.array([[2.0, 1.0, 0.1], [0.5, 2.5, 0.3]], np.float32)
    scce = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)(tf.constant([0, 1]), logits)
    log_p = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    assert float(scce) == pytest.approx(-(log_p[0, 0] + log_p[1, 1]) / 2, rel=1e-5)
    bce = tf.keras.losses.BinaryCrossentropy(from_logits=True)(tf.constant([[1.0]]), tf.constant([[0.5]]))
    assert float(bce) == pytest.approx(np.log(1 + np.exp(-0.5)), rel=1e-5)


def test_keras_training_loop_in_a_run(run):
    code = """import numpy as np
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(8, activation="relu"), tf.keras.layers.Dense(1)])
x = tf.constant(np.linspace(-1, 1, 32, dtype=np.float32).reshape(-1, 1))
y = 3.0 * x + 1.0
opt = tf.keras.optimizers.Adam(0.05)
for step in range(150):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
print(float(loss) < 0.05)
"""
    record = run(code)
    assert record["ok"], record["error"]
    assert record["stdout"] == "True\n"
    graph = record["graphs"][0]
    params = sorted(n["label"] for n in graph["forward"]["nodes"] if n["kind"] == "param")
    # Keras 3 paths: the layers were built inside the Sequential's name scope
    assert params == ["sequential/dense/bias", "sequential/dense/kernel", "sequential/dense_1/bias",
                      "sequential/dense_1/kernel"]


def _train_step(model, opt, x, y):
    # library code (not the pasted program): its `with` runs as Python, also while tf.function traces
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    return loss


def _compiled_step(model, opt, x, y):
    return _train_step(model, opt, x, y)


@pytest.mark.parametrize("make_opt", [lambda: tf.keras.optimizers.SGD(0.1, momentum=0.5),
                                      lambda: tf.keras.optimizers.Adam(0.1)])
def test_a_training_step_in_tf_function_equals_eager(make_opt):
    x = tf.constant([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]])
    y = tf.constant([[5.5], [1.5], [2.0]])
    results = []
    for compiled in (False, True):
        tf.keras.utils.set_random_seed(3)     # (Keras 3 seeds its initializers from Python's random)
        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        opt = make_opt()
        step = tf.function(_compiled_step) if compiled else _train_step
        losses = [float(step(model, opt, x, y)) for _ in range(5)]
        results.append((losses, [v.numpy() for v in model.trainable_variables], int(opt.iterations.numpy())))
        if compiled:
            assert step.experimental_get_tracing_count() == 1
    (eager_losses, eager_vars, n1), (fn_losses, fn_vars, n2) = results
    np.testing.assert_allclose(fn_losses, eager_losses, rtol=1e-5)
    for a, b in zip(fn_vars, eager_vars):
        np.testing.assert_allclose(a, b, rtol=1e-5)
    assert n1 == n2 == 5
