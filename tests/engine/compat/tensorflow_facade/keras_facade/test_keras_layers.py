"""Keras layers beyond tf_sweep 30's comparison with real Keras: the merge layers' gradients by
finite differences, a user's Layer subclass (add_weight in build), regularization losses, Dropout's
training behaviour, initializers' scales, keras.ops, and the symbolic shapes of the functional API."""
import numpy as np
import pytest

import engine.compat.tensorflow as tf

keras = tf.keras
layers = keras.layers


def _fd_check(f, arrays, eps=1e-2, rtol=2e-2, atol=2e-3):
    """d sum(f(*arrays) * probe) / d each array, by the tape and by central differences (float32)."""
    tensors = [tf.constant(a) for a in arrays]
    with tf.GradientTape() as tape:
        for t in tensors:
            tape.watch(t)
        out = f(*tensors)
        probe = np.cos(np.arange(out.numpy().size)).reshape(out.shape).astype(np.float32)
        loss = tf.reduce_sum(out * probe)
    grads = tape.gradient(loss, tensors)
    for i, a in enumerate(arrays):
        numeric = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            plus, minus = [x.copy() for x in arrays], [x.copy() for x in arrays]
            plus[i][idx] += eps
            minus[i][idx] -= eps
            numeric[idx] = (np.sum(f(*map(tf.constant, plus)).numpy() * probe)
                            - np.sum(f(*map(tf.constant, minus)).numpy() * probe)) / (2 * eps)
        np.testing.assert_allclose(grads[i].numpy(), numeric, rtol=rtol, atol=atol)


@pytest.mark.parametrize("make", [layers.Add, layers.Subtract, layers.Multiply, layers.Average, layers.Maximum,
                                  lambda: layers.Concatenate(axis=-1), lambda: layers.Concatenate(axis=1)])
def test_merge_layers_gradients_by_finite_differences(make):
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(2, 3)).astype(np.float32), rng.normal(size=(2, 3)).astype(np.float32)
    layer = make()
    _fd_check(lambda x, y: layer([x, y]), [a, b])


def test_add_and_concatenate_functions_in_the_functional_api():
    a, b = keras.Input((3,)), keras.Input((3,))
    assert layers.add([a, b]).shape == (None, 3)
    assert layers.concatenate([a, b]).shape == (None, 6)
    assert (a + b).shape == (None, 3) and (a * 2.0).shape == (None, 3)


def test_a_layer_subclass_with_add_weight():
    class Linear(keras.layers.Layer):
        def __init__(self, units=4):
            super().__init__()
            self.units = units

        def build(self, input_shape):
            self.w = self.add_weight(shape=(input_shape[-1], self.units), initializer="random_normal", trainable=True)
            self.b = self.add_weight(shape=(self.units,), initializer="zeros", trainable=True)

        def call(self, inputs):
            return keras.ops.matmul(inputs, self.w) + self.b

    layer = Linear(4)
    x = np.ones((2, 3), np.float32)
    y = layer(x)
    assert y.shape == [2, 4] and layer.name == "linear"
    np.testing.assert_allclose(y.numpy(), x @ layer.w.numpy(), rtol=1e-6)
    assert len(layer.trainable_weights) == 2
    _fd_check(lambda t: layer(t), [np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)])


def test_regularizers_add_to_the_loss_fit_minimises():
    dense = layers.Dense(2, kernel_initializer="ones", kernel_regularizer=keras.regularizers.l2(0.1))
    model = keras.Sequential([keras.Input((3,)), dense])
    assert len(model.losses) == 1 and float(model.losses[0]) == pytest.approx(0.1 * 6)
    model.compile(optimizer="sgd", loss="mse")
    x, y = np.zeros((4, 3), np.float32), np.zeros((4, 2), np.float32)
    assert model.evaluate(x, y, verbose=0) == pytest.approx(0.6, rel=1e-6)


def test_dropout_scales_what_it_keeps_in_training_only():
    tf.random.set_seed(0)
    drop = layers.Dropout(0.25)
    x = np.ones((200, 50), np.float32)
    np.testing.assert_array_equal(drop(x).numpy(), x)
    y = drop(x, training=True).numpy()
    assert set(np.unique(y)) <= {0.0, np.float32(1 / 0.75)}
    assert abs((y == 0).mean() - 0.25) < 0.02


def test_initializers_keep_keras_scales():
    tf.random.set_seed(1)
    shape = (300, 200)
    limit = np.sqrt(6 / 500)
    w = keras.initializers.GlorotUniform()(shape).numpy()         # a tensor, as Keras' initializers return
    assert w.shape == shape and np.abs(w).max() <= limit and np.abs(w).max() > 0.99 * limit
    he = keras.initializers.HeNormal(seed=3)(shape).numpy()
    assert np.abs(he).max() <= 2 * np.sqrt(2 / 300) / 0.87962566103423978 + 1e-6
    assert np.std(he) == pytest.approx(np.sqrt(2 / 300), rel=0.05)
    assert keras.initializers.get("zeros")((2,)).numpy().tolist() == [0, 0]
    q = keras.initializers.Orthogonal()((4, 4)).numpy()
    np.testing.assert_allclose(q @ q.T, np.eye(4), atol=1e-5)
    assert keras.initializers.compute_fans((3, 3, 4, 8)) == (36.0, 72.0)


def test_keras_ops_basics():
    x = keras.ops.convert_to_tensor([[1.0, -2.0], [3.0, 4.0]])
    assert float(keras.ops.sum(x)) == 6.0 and float(keras.ops.mean(x)) == 1.5
    assert keras.ops.matmul(x, x).numpy().tolist() == [[-5.0, -10.0], [15.0, 10.0]]
    assert keras.ops.relu(x).numpy().tolist() == [[1.0, 0.0], [3.0, 4.0]]
    assert keras.ops.concatenate([x, x], axis=0).shape == [4, 2]
    assert keras.ops.argmax(x, axis=-1).numpy().tolist() == [0, 1]
    np.testing.assert_allclose(keras.ops.softmax(x).numpy().sum(-1), [1, 1], rtol=1e-6)


def test_unknown_sequence_lengths_stay_none():
    tokens = keras.Input(shape=(None,), dtype="int32")
    h = layers.Embedding(10, 4)(tokens)
    assert h.shape == (None, None, 4)
    assert layers.LSTM(3, return_sequences=True)(h).shape == (None, None, 3)
    assert layers.GlobalAveragePooling1D()(h).shape == (None, 4)


def test_utils():
    assert keras.utils.to_categorical([0, 2, 1]).tolist() == [[1, 0, 0], [0, 0, 1], [0, 1, 0]]
    assert keras.utils.to_categorical(np.array([[1], [0]]), 3).shape == (2, 3)
    keras.utils.set_random_seed(5)
    a = keras.initializers.RandomNormal()((3,))
    keras.utils.set_random_seed(5)
    np.testing.assert_array_equal(a, keras.initializers.RandomNormal()((3,)))


def test_rescaling_and_lambda():
    x = np.array([[0.0, 255.0]], np.float32)
    assert layers.Rescaling(1.0 / 255)(x).numpy().tolist() == [[0.0, 1.0]]
    assert layers.Rescaling(2.0, offset=-1.0)(x[:, :1]).numpy().tolist() == [[-1.0]]
    assert layers.Lambda(lambda t: t * 2.0)(x).numpy().tolist() == [[0.0, 510.0]]


# What TF 2.21 printed (`.numpy().tolist()`) for each stateless draw; test_the_stored_draws_are_tensorflows
# runs the same calls through real TensorFlow where it is installed (`make test-oracles`).
TF_STATELESS_DRAWS = {
    "stateless_uniform((2, 5), seed=[12345, 0])": [[0.55639565, 0.95709324, 0.19798899, 0.19552445, 0.91496456],
                                                   [0.92985284, 0.09116387, 0.4360466, 0.94396234, 0.80699337]],
    "stateless_normal((2, 5), seed=[12345, 0])": [[-0.28840184, 1.0437316, 1.6953467, 0.6040592, -0.17985782],
                                                  [0.38130182, 0.8559907, -2.014317, -0.31807092, 0.11903331]],
    "stateless_truncated_normal((3, 5), seed=[777, 0])": [
        [-1.1387041, -0.32275173, -1.3182986, 1.3314465, 0.76195794],
        [-0.6699127, 0.8222977, -0.36446562, -0.6567971, 0.13427985],
        [0.7772746, -0.9102862, 1.0681361, -0.24272363, -0.10317471]],
}


def test_philox_is_tensorflows_stateless_stream():
    """tf.random.stateless_uniform / stateless_normal((2, 5), seed=[12345, 0]) printed by TF 2.21."""
    from engine.compat.tensorflow.keras import philox
    uniform = TF_STATELESS_DRAWS["stateless_uniform((2, 5), seed=[12345, 0])"]
    normal = TF_STATELESS_DRAWS["stateless_normal((2, 5), seed=[12345, 0])"]
    np.testing.assert_array_equal(philox.uniform((2, 5), [12345, 0]), np.array(uniform, np.float32))
    np.testing.assert_allclose(philox.normal((2, 5), [12345, 0]), normal, rtol=1e-6)


def test_seeded_initializers_take_keras_seeds_from_pythons_random():
    import random
    keras.utils.set_random_seed(42)
    expected_seed = random.Random(42).randint(1, int(1e9))
    dense = layers.Dense(3)
    assert dense.kernel_initializer.seed == expected_seed
    keras.utils.set_random_seed(42)
    again = layers.Dense(3)
    x = np.ones((1, 4), np.float32)
    np.testing.assert_array_equal(dense(x).numpy(), again(x).numpy())


def test_truncated_normal_is_tensorflows():
    """tf.random.stateless_truncated_normal((3, 5), seed=[777, 0]) printed by TF 2.21."""
    from engine.compat.tensorflow.keras import philox
    expected = TF_STATELESS_DRAWS["stateless_truncated_normal((3, 5), seed=[777, 0])"]
    np.testing.assert_allclose(philox.truncated_normal((3, 5), [777, 0]), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.oracle
def test_the_stored_draws_are_tensorflows():
    import importlib.util
    import json
    from tests.engine import record_goldens
    spec = importlib.util.find_spec("tensorflow")
    if spec is None or spec.origin is None:       # (a folder named tensorflow on sys.path is not TensorFlow)
        pytest.skip("real TensorFlow is not installed (make test-oracles installs it)")
    # in a child, as record_goldens runs every TF golden: real TensorFlow, never Dagscope's facade
    program = "import json\nimport tensorflow\n" + "".join(
        f"print(json.dumps(tensorflow.random.{call}.numpy().tolist()))\n" for call in TF_STATELESS_DRAWS)
    results, _ = record_goldens.library_outputs(record_goldens.LIBRARIES["tensorflow"], ["draws"],
                                                sources={"draws": program})
    assert results["draws"]["error"] is None, results["draws"]["error"]
    printed = [json.loads(line) for line in results["draws"]["stdout"].splitlines()]
    for (call, stored), real in zip(TF_STATELESS_DRAWS.items(), printed, strict=True):
        np.testing.assert_allclose(np.array(stored, np.float32), np.array(real, np.float32), rtol=1e-6,
                                   err_msg=call)


def test_datasets_say_they_are_downloads(run):
    record = run("from tensorflow.keras.datasets import mnist\n")
    assert not record["ok"] and "downloads" in record["error"]["message"]
    assert "np.random.rand(256, 28, 28)" in record["error"]["message"]
