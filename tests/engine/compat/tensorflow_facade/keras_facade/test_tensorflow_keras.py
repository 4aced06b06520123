"""tf.keras basics: Dense/Sequential/Model variables (Keras 3's names), Keras' optimizer rules, losses."""
import numpy as np
import pytest

import engine.compat.tensorflow as tf
from engine.errors import UnsupportedError
from tests.engine.conftest import run_real_tensorflow

# Keras 3's (TF 2.21's tf.keras) names and paths for the weights of Dense(3, name="d") and of the two
# Dense layers of TRAINING_PROGRAM's Sequential, sorted; test_the_stored_names_and_steps_are_keras_3s
# makes them, and the optimizer steps below, with real TensorFlow (make test-oracles)
KERAS_DENSE_NAMES = ["kernel", "bias"]
KERAS_DENSE_PATHS = ["d/kernel", "d/bias"]
KERAS_SEQUENTIAL_PATHS = ["sequential/dense/bias", "sequential/dense/kernel", "sequential/dense_1/bias",
                          "sequential/dense_1/kernel"]


def test_dense_layer_is_matmul_bias_activation():
    layer = tf.keras.layers.Dense(3, activation="relu", name="d")
    x = tf.constant([[1.0, -2.0]])
    y = layer(x)
    k, b = layer.kernel.numpy(), layer.bias.numpy()
    np.testing.assert_allclose(y.numpy(), np.maximum(x.numpy() @ k + b, 0), rtol=1e-6)
    # Keras 3 (tf.keras since TF 2.16): a weight's name is short, its path says whose it is
    assert [v.name for v in layer.trainable_variables] == KERAS_DENSE_NAMES
    assert [v.path for v in layer.trainable_variables] == KERAS_DENSE_PATHS
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


def _adam_by_hand(lr=0.1, b1=0.9, b2=0.999, eps=1e-7):
    w, m, v, expected = 5.0, 0.0, 0.0, []
    for t in (1, 2, 3):
        g = 2 * (w - 2.0)
        m += (g - m) * (1 - b1)
        v += (g * g - v) * (1 - b2)
        w -= lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t) * m / (np.sqrt(v) + eps)
        expected.append(w)
    return expected


# (optimizer, steps, w after each step of (w - 2)^2 from w = 5), by hand
OPTIMIZER_STEPS = [("SGD(0.1)", 2, [4.4, 3.92]),
                   # momentum 0.9: v1 = -0.6, w = 4.4; g = 4.8, v2 = 0.9 * -0.6 - 0.48 = -1.02, w = 3.38
                   ("SGD(0.1, momentum=0.9)", 2, [4.4, 3.38]),
                   ("Adam(0.1)", 3, _adam_by_hand())]


@pytest.mark.parametrize("optimizer,steps,expected", OPTIMIZER_STEPS)
def test_optimizer_rules_by_hand(optimizer, steps, expected):
    rel = 1e-5 if optimizer.startswith("Adam") else 1e-6
    assert _quadratic_steps(eval(f"tf.keras.optimizers.{optimizer}"), steps) == pytest.approx(expected, rel=rel)


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


TRAINING_PROGRAM = """import numpy as np
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


def test_keras_training_loop_in_a_run(run):
    record = run(TRAINING_PROGRAM)
    assert record["ok"], record["error"]
    assert record["stdout"] == "True\n"
    graph = record["graphs"][0]
    params = sorted(n["label"] for n in graph["forward"]["nodes"] if n["kind"] == "param")
    # Keras 3 paths: the layers were built inside the Sequential's name scope
    assert params == KERAS_SEQUENTIAL_PATHS


@pytest.mark.oracle
def test_the_stored_names_and_steps_are_keras_3s():
    import inspect
    import json
    child = (TRAINING_PROGRAM + "print(json.dumps(sorted(v.path for v in model.trainable_variables)))\n"
             "layer = tf.keras.layers.Dense(3, activation='relu', name='d')\nlayer(tf.constant([[1.0, -2.0]]))\n"
             "print(json.dumps([[v.name for v in layer.trainable_variables], "
             "[v.path for v in layer.trainable_variables]]))\n"
             + inspect.getsource(_quadratic_steps) +
             f"print(json.dumps([_quadratic_steps(eval('tf.keras.optimizers.' + o), n) for o, n, _ in "
             f"{[(o, n, None) for o, n, _ in OPTIMIZER_STEPS]!r}]))\n")
    stdout, _ = run_real_tensorflow("import json\n" + child)
    trained, sequential_paths, dense, steps = stdout.splitlines()
    assert trained == "True"
    assert json.loads(sequential_paths) == KERAS_SEQUENTIAL_PATHS
    assert json.loads(dense) == [KERAS_DENSE_NAMES, KERAS_DENSE_PATHS]
    for (optimizer, _, expected), real in zip(OPTIMIZER_STEPS, json.loads(steps), strict=True):
        assert real == pytest.approx(expected, rel=1e-5 if optimizer.startswith("Adam") else 1e-6), optimizer


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
