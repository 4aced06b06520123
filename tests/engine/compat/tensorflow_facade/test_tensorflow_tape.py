"""GradientTape on the engine's autograd: hand-computed values, finite differences, TF's tape rules."""
import numpy as np
import pytest

import engine.compat.tensorflow as tf
from tests.engine.conftest import central_difference


def test_polynomial_gradient_by_hand():
    x = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = x * x + 2.0 * x + 1.0
    assert tape.gradient(y, x).numpy() == pytest.approx(8.0)       # 2x + 2


def test_composite_gradients_equal_finite_differences():
    rng = np.random.default_rng(1)
    w0 = rng.standard_normal((3, 4))
    b0 = rng.standard_normal((4,))
    x0 = rng.standard_normal((5, 3))
    labels = np.eye(4)[[0, 1, 2, 3, 0]]

    def loss_of(w, b):
        logits = tf.nn.relu(tf.matmul(tf.constant(x0), w) + b)
        return tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(tf.constant(labels), logits)
                              + 0.1 * tf.reduce_sum(tf.tanh(logits), axis=1))

    w, b = tf.Variable(w0), tf.Variable(b0)                      # float64: finite differences are exact enough
    with tf.GradientTape() as tape:
        loss = loss_of(w, b)
    grads = tape.gradient(loss, {"w": w, "b": b})
    num_w = central_difference(lambda a: float(loss_of(tf.constant(a), tf.constant(b0))), w0)
    num_b = central_difference(lambda a: float(loss_of(tf.constant(w0), tf.constant(a))), b0)
    np.testing.assert_allclose(grads["w"].numpy(), num_w, rtol=1e-5, atol=1e-8)
    np.testing.assert_allclose(grads["b"].numpy(), num_b, rtol=1e-5, atol=1e-8)


def test_watch_constants_and_nested_sources():
    x = tf.constant(3.0)
    y = tf.constant(2.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        z = x * x * y
    assert tape.gradient(z, y) is None                            # not watched
    gx, (gx2,) = tape.gradient(z, [x, (x,)])
    assert gx.numpy() == 12.0 and gx2.numpy() == 12.0
    assert tape.gradient(z, y, unconnected_gradients=tf.UnconnectedGradients.ZERO).numpy() == 0.0


def test_non_persistent_tape_is_single_use():
    x = tf.Variable(1.0)
    with tf.GradientTape() as tape:
        y = x * 3.0
    assert tape.gradient(y, x).numpy() == 3.0
    with pytest.raises(RuntimeError, match="non-persistent"):
        tape.gradient(y, x)


def test_ops_outside_the_tape_are_constants_to_it():
    x = tf.Variable(2.0)
    y = x * x                                    # before the tape: not recorded
    with tf.GradientTape() as tape:
        z = y * x
    assert tape.gradient(z, x).numpy() == 4.0    # only the direct use of x (y is a constant 4)


def test_another_tapes_ops_are_constants_to_it():
    x = tf.constant(2.0)
    with tf.GradientTape() as t1:
        t1.watch(x)
        y = x * x
    with tf.GradientTape() as t2:
        t2.watch(x)
        z = y * x
    assert t2.gradient(z, x).numpy() == 4.0
    assert t1.gradient(y, x).numpy() == 4.0


def test_second_derivative_with_nested_tapes():
    x = tf.Variable(2.0)
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            y = x * x * x
        dy = inner.gradient(y, x)
    assert dy.numpy() == 12.0                    # 3x^2
    assert outer.gradient(dy, x).numpy() == 12.0  # 6x


def test_stop_recording():
    x = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = x * x
        with tape.stop_recording():
            z = x * 10.0
        out = y + z
    assert tape.gradient(out, x).numpy() == 4.0


def test_variable_reads_around_an_assign_both_count():
    v = tf.Variable(1.0)
    with tf.GradientTape() as tape:
        a = v * v                    # read at 1.0
        v.assign(3.0)
        b = v * v                    # read at 3.0
        total = a + b
    assert tape.gradient(total, v).numpy() == 8.0      # 2*1 + 2*3, as TensorFlow gives


def test_gradient_with_respect_to_an_intermediate():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * 3.0
        z = tf.reduce_sum(y * y)
    assert tape.gradient(z, y).numpy().tolist() == [6.0, 12.0]


def test_training_loop_reduces_loss():
    w = tf.Variable([0.0, 0.0])
    x = tf.constant([[1.0, 2.0], [3.0, -1.0]])
    target = tf.constant([5.0, 1.0])                       # w = [1, 2] fits exactly
    for _ in range(100):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(tf.reshape(tf.matmul(x, tf.reshape(w, [2, 1])), [-1]) - target))
        w.assign_sub(0.1 * tape.gradient(loss, w))
    np.testing.assert_allclose(w.numpy(), [1.0, 2.0], atol=1e-2)


def test_tape_gradient_is_recorded_for_the_page(run):
    record = run("import tensorflow as tf\nx = tf.Variable(3.0)\nwith tf.GradientTape() as tape:\n"
                 "    loss = x * x\nprint(tape.gradient(loss, x))\n")
    assert record["stdout"] == "tf.Tensor(6.0, shape=(), dtype=float32)\n"
    (graph,) = record["graphs"]
    assert graph["kind"] == "dynamic" and graph["title"] == "loss: tape.gradient() #1"
    assert [n["op"] for n in graph["backward"]["nodes"]] == ["MulBackward0", "AccumulateGrad"]
    x = next(n for n in graph["forward"]["nodes"] if n["label"] == "Variable")
    assert x["kind"] == "param"


def test_tf_module_collects_variables_for_a_training_step():
    class Linear(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable([[0.0], [0.0]], name="w")
            self.b = tf.Variable(0.0, name="b")
            self.frozen = tf.Variable(1.0, trainable=False)

        def __call__(self, x):
            return tf.matmul(x, self.w) + self.b

    class Model(tf.Module):
        def __init__(self):
            super().__init__()
            self.layers = [Linear()]

    model = Model()
    assert [v.name for v in model.trainable_variables] == ["b:0", "w:0"]      # by attribute name, as TF
    assert len(model.variables) == 3 and model.name == "model"
    x = tf.constant([[1.0, 2.0]])
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(model.layers[0](x))
    gb, gw = tape.gradient(loss, model.trainable_variables)
    assert gb.numpy() == 1.0 and gw.numpy().ravel().tolist() == [1.0, 2.0]
