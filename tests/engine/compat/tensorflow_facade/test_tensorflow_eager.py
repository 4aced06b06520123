"""TF2 eager tensors: TensorFlow's dtype rules and printing, ops against numpy, variables, names."""
import sys

import numpy as np
import pytest

import engine.compat.tensorflow as tf
from engine.compat.tensorflow.errors import InvalidArgumentError
from engine.errors import UnsupportedError
from engine.tensor import Tensor


def test_constant_dtype_rules():
    assert tf.constant(2).dtype == tf.int32
    assert tf.constant(2.0).dtype == tf.float32
    assert tf.constant([1, 2.5]).dtype == tf.float32
    assert tf.constant(True).dtype == tf.bool
    assert tf.constant(2**40).dtype == tf.int64
    assert tf.constant(np.array([1.0])).dtype == tf.float64        # numpy keeps its dtype
    assert tf.constant(3, dtype=tf.float32).numpy() == np.float32(3.0)
    with pytest.raises(TypeError, match="Cannot convert 1.5"):
        tf.constant(1.5, dtype=tf.int32)


def test_eager_tensors_are_engine_tensors():
    t = tf.constant([1.0, 2.0])
    assert isinstance(t, Tensor) and isinstance(t, tf.Tensor)
    assert tf.add(t, t).array.tolist() == [2.0, 4.0]


def test_printing_matches_tensorflow():
    assert str(tf.constant(5)) == "tf.Tensor(5, shape=(), dtype=int32)"
    assert str(tf.constant([1.0, 2.0])) == "tf.Tensor([1. 2.], shape=(2,), dtype=float32)"
    assert str(tf.constant([[1.0, 2.0], [3.0, 4.0]])) == \
        "tf.Tensor(\n[[1. 2.]\n [3. 4.]], shape=(2, 2), dtype=float32)"
    assert repr(tf.constant([1, 2])) == "<tf.Tensor: shape=(2,), dtype=int32, numpy=array([1, 2], dtype=int32)>"
    assert repr(tf.constant(2.5)) == "<tf.Tensor: shape=(), dtype=float32, numpy=2.5>"
    t = tf.zeros([2, 3])
    assert str(t.shape) == "(2, 3)" and repr(t.shape) == "TensorShape([2, 3])"
    assert str(t.dtype) == "<dtype: 'float32'>" and repr(t.dtype) == "tf.float32"
    assert t.shape == [2, 3] and t.shape.as_list() == [2, 3] and t.shape[0] == 2


def test_numpy_returns_values_and_scalars():
    c = tf.add(tf.constant(2), tf.constant(3))
    assert c.numpy() == 5 and type(c.numpy()) is np.int32
    arr = tf.constant([1.0, 2.0]).numpy()
    assert isinstance(arr, np.ndarray) and arr.dtype == np.float32


def test_no_implicit_promotion():
    with pytest.raises(InvalidArgumentError, match="AddV2"):
        tf.add(tf.constant(1), tf.constant(1.0))
    with pytest.raises(InvalidArgumentError, match="Tanh"):
        tf.tanh(tf.constant(1))
    assert (tf.constant(1.5) + 1).dtype == tf.float32              # Python numbers take the tensor's dtype


def test_integer_ops_keep_tensorflow_dtypes():
    x = tf.constant([1, 2, 4])
    assert tf.reduce_sum(x).dtype == tf.int32 and tf.reduce_sum(x).numpy() == 7
    assert tf.reduce_mean(x).numpy() == 2 and tf.reduce_mean(x).dtype == tf.int32     # 7 / 3 truncated
    q = tf.constant(5) / tf.constant(2)
    assert q.dtype == tf.float64 and q.numpy() == 2.5


def test_math_against_numpy():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 4)).astype(np.float32)
    b = rng.standard_normal((4, 2)).astype(np.float32)
    ta, tb = tf.constant(a), tf.constant(b)
    np.testing.assert_allclose(tf.matmul(ta, tb).numpy(), a @ b, rtol=1e-5)
    np.testing.assert_allclose(tf.matmul(ta, ta, transpose_b=True).numpy(), a @ a.T, rtol=1e-5)
    np.testing.assert_allclose(tf.reduce_sum(ta, axis=1).numpy(), a.sum(1), rtol=1e-5)
    np.testing.assert_allclose(tf.reduce_mean(ta, axis=[0, 1]).numpy(), a.mean(), rtol=1e-5)
    np.testing.assert_allclose(tf.reduce_max(ta, axis=0, keepdims=True).numpy(), a.max(0, keepdims=True))
    e = np.exp(a - a.max(1, keepdims=True))
    np.testing.assert_allclose(tf.nn.softmax(ta).numpy(), e / e.sum(1, keepdims=True), rtol=1e-5)
    np.testing.assert_allclose(tf.nn.relu(ta).numpy(), np.maximum(a, 0))
    np.testing.assert_allclose(tf.nn.sigmoid(ta).numpy(), 1 / (1 + np.exp(-a)), rtol=1e-5)
    np.testing.assert_allclose(tf.math.tanh(ta).numpy(), np.tanh(a), rtol=1e-5)
    np.testing.assert_allclose(tf.math.exp(ta).numpy(), np.exp(a), rtol=1e-5)
    np.testing.assert_allclose(tf.subtract(ta, 1.0).numpy(), a - 1)
    np.testing.assert_allclose(tf.divide(ta, 2.0).numpy(), a / 2)
    np.testing.assert_allclose(tf.multiply(ta, ta).numpy(), a * a)
    np.testing.assert_allclose(tf.reshape(ta, [2, -1]).numpy(), a.reshape(2, -1))
    np.testing.assert_allclose(tf.transpose(ta).numpy(), a.T)
    np.testing.assert_allclose(tf.concat([ta, ta], axis=1).numpy(), np.concatenate([a, a], 1))
    np.testing.assert_allclose(tf.maximum(ta, 0.0).numpy(), np.maximum(a, 0))


def test_creation():
    assert tf.ones([2]).numpy().tolist() == [1.0, 1.0]
    assert tf.zeros((1, 2), dtype=tf.int32).dtype == tf.int32
    assert tf.fill([2], 7).numpy().tolist() == [7, 7]
    assert tf.range(5).numpy().tolist() == [0, 1, 2, 3, 4] and tf.range(5).dtype == tf.int32
    assert tf.range(0.0, 1.0, 0.5).numpy().tolist() == [0.0, 0.5]
    assert tf.zeros_like(tf.constant([1, 2])).numpy().tolist() == [0, 0]


def test_random_is_seeded():
    tf.random.set_seed(7)
    a = tf.random.normal([3]).numpy()
    b = tf.random.uniform([2], maxval=10, dtype=tf.int32)
    tf.random.set_seed(7)
    np.testing.assert_array_equal(tf.random.normal([3]).numpy(), a)
    assert b.dtype == tf.int32 and b.numpy().min() >= 0 and b.numpy().max() < 10
    assert not np.array_equal(tf.random.normal([3]).numpy(), a)


def test_slicing_and_iteration():
    m = tf.constant([[1, 2, 3], [4, 5, 6]])
    assert m[0].numpy().tolist() == [1, 2, 3]
    assert m[:, 1:].numpy().tolist() == [[2, 3], [5, 6]]
    assert m[..., -1].numpy().tolist() == [3, 6]
    assert m[1, 2].numpy() == 6
    assert m[tf.newaxis].shape == [1, 2, 3]
    assert [row.numpy().tolist() for row in m] == [[1, 2, 3], [4, 5, 6]]


def test_variable_assign_and_printing():
    v = tf.Variable(3.0)
    assert repr(v) == "<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=3.0>"
    v.assign(1.0)
    v.assign_add(2.0)
    v.assign_sub(0.5)
    assert v.numpy() == 2.5 and v.trainable
    assert (v * 2).numpy() == 5.0
    w = tf.Variable([1, 2], trainable=False, name="w")
    assert w.name == "w:0" and not w.trainable and w.dtype == tf.int32
    with pytest.raises(ValueError, match="Shape mismatch"):
        w.assign([1, 2, 3])


def test_tf_print(capsys):
    tf.print(tf.constant([[1, 2], [3, 4]]), tf.constant(2.5))
    assert capsys.readouterr().err == "[[1 2]\n [3 4]] 2.5\n"          # TF's default stream: stderr
    tf.print("to stdout", output_stream=sys.stdout)
    assert capsys.readouterr().out == "to stdout\n"


def test_unsupported_names_fail_clearly():
    with pytest.raises(UnsupportedError, match=r"tf\.not_a_real_op is not supported"):
        tf.not_a_real_op
    with pytest.raises(UnsupportedError, match=r"tf\.nn\.conv3d is not supported.*relu"):
        tf.nn.conv3d


def test_unsupported_name_in_a_run_is_an_unsupported_error(run):
    record = run("import tensorflow as tf\nx = tf.constant(1.0)\ny = tf.strings.length(x)\n")
    assert not record["ok"]
    assert record["error"]["kind"] == "unsupported" and record["error"]["line"] == 3
    assert "tf.strings" in record["error"]["message"]
    record = run("import tensorflow.estimator\n")
    assert record["error"]["kind"] == "unsupported"


def test_pytorch_style_methods_are_not_on_tf_tensors():
    x = tf.constant([1.0, 2.0])
    with pytest.raises(AttributeError, match="tf.reduce_sum"):
        x.sum()
    with pytest.raises(AttributeError):
        x.add_(1.0)
    assert float(tf.constant(2.5)) == 2.5 and int(tf.constant(3)) == 3 and [0, 1, 2][tf.constant(1)] == 1


def test_hasattr_sees_unsupported_names_as_missing():
    assert not hasattr(tf, "estimator") and hasattr(tf, "constant")
    assert getattr(tf.nn, "conv3d", None) is None


def test_operators_make_new_tensors_with_tensorflow_rules():
    x = tf.constant([7, -7])
    y = x
    x += 1                                           # a new tensor: y is unchanged, as in TensorFlow
    assert y.numpy().tolist() == [7, -7] and x.numpy().tolist() == [8, -6]
    assert (y // 2).numpy().tolist() == [3, -4] and (y % 3).numpy().tolist() == [1, 2]
    t, f = tf.constant([True, False]), tf.constant([True, True])
    assert (t & f).numpy().tolist() == [True, False] and (~t).numpy().tolist() == [False, True]
    with pytest.raises(TypeError, match="item assignment"):
        y[0] = 1
