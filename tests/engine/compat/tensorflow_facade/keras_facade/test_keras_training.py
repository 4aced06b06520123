"""Keras' training API in a run: keras.Input, functional / Sequential / subclassed Models, compile /
fit / evaluate / predict, History (and its numbers on the Charts: the record's summaries), the
progress lines of verbose=1 and 2 (Dagscope's deterministic timing: '0s 0s/step'), summary(). What is
stored as Keras' is made by real Keras 3 (TF 2.21's) in test_the_stored_lines_are_keras (make test-oracles)."""
import re

import numpy as np
import pytest

import engine.compat.tensorflow as tf
from engine.compat.tensorflow.keras import display
from tests.engine.conftest import run_real_tensorflow

keras = tf.keras

MLP = """import numpy as np
import keras
x = np.linspace(-1, 1, 40, dtype="float32").reshape(20, 2)
y = (x[:, :1] > x[:, 1:]).astype("float32")
inputs = keras.Input(shape=(2,))
h = keras.layers.Dense(4, activation="relu", kernel_initializer="ones")(inputs)
out = keras.layers.Dense(1, activation="sigmoid", kernel_initializer="ones")(h)
model = keras.Model(inputs, out)
model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
history = model.fit(x, y, epochs=2, batch_size=8, validation_split=0.25, shuffle=False)
print(sorted(history.history), history.params, history.epoch)
"""
# What Keras 3 printed: MLP's last line (fit's default verbose is "auto", kept as such in params), the
# progress lines of verbose=1 and 2 (timings aside), EARLY_STOPPING's printout, ModelCheckpoint's words
KERAS_HISTORY_LINE = "['accuracy', 'loss', 'val_accuracy', 'val_loss'] {'verbose': 'auto', 'epochs': 2, 'steps': 2} [0, 1]"
KERAS_NUMBER = r"(\d\.\d{4}|\d\.\d{4}e[+-]\d\d)"     # 4 decimals, or 4 significant digits below 1e-3
KERAS_MLP_EPOCH_LINE = (f"2/2 ━━━━━━━━━━━━━━━━━━━━ 0s 0s/step - accuracy: {KERAS_NUMBER} - loss: {KERAS_NUMBER} - "
                        f"val_accuracy: {KERAS_NUMBER} - val_loss: {KERAS_NUMBER}")
KERAS_PROGRESS = ["32/32 ━━━━━━━━━━━━━━━━━━━━ 0s 0s/step - accuracy: 0.5000 - loss: 0.6931",
                  "3/3 - 0s - 0s/step - loss: 1.2340e-04"]
EARLY_STOPPING = """import numpy as np
import keras
class Log(keras.callbacks.Callback):
    def on_epoch_end(self, epoch, logs=None):
        print("end", epoch, sorted(logs))
model = keras.Sequential([keras.Input((1,)), keras.layers.Dense(1, kernel_initializer="zeros")])
model.compile(optimizer=keras.optimizers.SGD(0.0), loss="mse")
x = np.ones((4, 1), "float32")
stop = keras.callbacks.EarlyStopping(monitor="loss", patience=2, verbose=1)
history = model.fit(x, x, epochs=10, callbacks=[Log(), stop], verbose=0)
print(len(history.history["loss"]), stop.stopped_epoch)
"""
KERAS_EARLY_STOPPING = "end 0 ['loss']\nend 1 ['loss']\nend 2 ['loss']\nEpoch 3: early stopping\n3 2\n"
KERAS_CHECKPOINT = ["\nEpoch 1: loss improved from None to 4.00000, saving model to best.weights.h5\n",
                    "Epoch 2: loss improved from 4.00000 to "]
KERAS_SUMMARY_SHAPES = ["│ (None, 4)              │", "│ (5, 4)                 │"]   # fitted, called


def test_fit_prints_keras_progress_lines_and_fills_history(run):
    record = run(MLP)
    assert record["ok"], record["error"]
    lines = record["stdout"].splitlines()
    assert lines[0] == "Epoch 1/2" and lines[2] == "Epoch 2/2"
    # 15 training samples in batches of 8: 2 steps; logs sorted by name, the val_ ones after
    assert re.fullmatch(KERAS_MLP_EPOCH_LINE, lines[1]) and re.fullmatch(KERAS_MLP_EPOCH_LINE, lines[3]), lines
    assert lines[4] == KERAS_HISTORY_LINE
    # each epoch's numbers reach the Charts tab as scalar series, x = the epoch
    scalars = {s["tag"]: s["points"] for s in record["summaries"]["scalars"]}
    assert set(scalars) == {"accuracy", "loss", "val_accuracy", "val_loss"}
    assert [p[0] for p in scalars["loss"]] == [0, 1]


def test_progress_line_formats():
    assert display.progress_line(32, 32, [("accuracy", 0.5), ("loss", 0.69314)]) == KERAS_PROGRESS[0]
    assert display.progress_line(3, 3, [("loss", 0.0001234)], verbose=2) == KERAS_PROGRESS[1]


def _functional_mlp():
    inputs = keras.Input(shape=(3,))
    h = keras.layers.Dense(4, activation="tanh")(inputs)
    return inputs, keras.layers.Dense(2)(h)


def test_functional_model_replays_its_graph_and_trains():
    tf.random.set_seed(0)
    inputs, outputs = _functional_mlp()
    model = keras.Model(inputs=inputs, outputs=outputs)
    assert inputs.shape == (None, 3) and outputs.shape == (None, 2)
    assert [type(layer).__name__ for layer in model.layers] == ["InputLayer", "Dense", "Dense"]
    x = np.random.default_rng(0).normal(size=(16, 3)).astype(np.float32)
    y = x[:, :2] * 2.0
    first, second = model.layers[1], model.layers[2]
    np.testing.assert_allclose(model.predict(x, verbose=0),
                               np.tanh(x @ first.kernel.numpy() + first.bias.numpy()) @ second.kernel.numpy()
                               + second.bias.numpy(), rtol=1e-5, atol=1e-6)
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    history = model.fit(x, y, epochs=5, batch_size=16, verbose=0)
    assert len(history.history["loss"]) == 5 and history.history["loss"][-1] < history.history["loss"][0]
    # a full-batch epoch's loss is the loss before that epoch's step
    before = float(np.mean((model.predict(x, verbose=0) - y) ** 2))
    assert model.evaluate(x, y, verbose=0) == pytest.approx(before, rel=1e-5)


def test_fit_step_is_one_gradient_step_of_the_mean_loss():
    """One SGD step of fit equals w -= lr * d(mean loss)/dw, computed here by hand for a linear model."""
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1, kernel_initializer="zeros")])
    x = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]], np.float32)
    y = np.array([[1.0], [2.0], [3.0]], np.float32)
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    model.fit(x, y, epochs=1, batch_size=3, verbose=0, shuffle=False)
    grad_w = (2 / 3) * x.T @ (0 - y)
    grad_b = (2 / 3) * np.sum(0 - y)
    np.testing.assert_allclose(model.layers[0].kernel.numpy(), -0.1 * grad_w, rtol=1e-6)
    np.testing.assert_allclose(model.layers[0].bias.numpy(), [-0.1 * grad_b], rtol=1e-6)


def test_evaluate_returns_loss_then_metrics_in_compile_order():
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(3, activation="softmax")])
    model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy", metrics=["accuracy", "sparse_categorical_crossentropy"])
    x = np.ones((5, 2), np.float32)
    y = np.array([0, 1, 2, 0, 1])
    values = model.evaluate(x, y, verbose=0)
    assert len(values) == 3
    logs = model.evaluate(x, y, verbose=0, return_dict=True)
    assert list(logs) == ["accuracy", "loss", "sparse_categorical_crossentropy"]
    assert values[0] == logs["loss"] and values[1] == logs["accuracy"]
    probs = model.predict(x, verbose=0)
    assert logs["accuracy"] == pytest.approx(np.mean(np.argmax(probs, 1) == y))
    assert logs["loss"] == pytest.approx(-np.mean(np.log(probs[np.arange(5), y])), rel=1e-5)


def test_subclassed_model_with_custom_train_step():
    class Custom(keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = keras.layers.Dense(1)

        def call(self, x):
            return self.dense(x)

        def train_step(self, data):
            x, y = data
            with tf.GradientTape() as tape:
                y_pred = self(x, training=True)
                loss = self.compute_loss(y=y, y_pred=y_pred)
            grads = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply(grads, self.trainable_variables)
            for metric in self.metrics:
                if metric.name == "loss":
                    metric.update_state(loss)
                else:
                    metric.update_state(y, y_pred)
            return {m.name: m.result() for m in self.metrics}

    model = Custom()
    model.compile(optimizer="adam", loss="mse", metrics=["mae"])
    x = np.random.default_rng(1).normal(size=(12, 3)).astype(np.float32)
    history = model.fit(x, x[:, :1], epochs=2, batch_size=4, verbose=0)
    assert sorted(history.history) == ["loss", "mae"]
    assert model.name == "custom"


def test_early_stopping_and_callbacks(run):
    record = run(EARLY_STOPPING)
    assert record["ok"], record["error"]
    assert record["stdout"] == KERAS_EARLY_STOPPING


def test_save_and_load_weights_within_a_run(run):
    code = """import numpy as np
import keras
model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(2)])
before = model.get_weights()
model.save_weights("model.weights.h5")
model.set_weights([w + 1 for w in before])
model.load_weights("model.weights.h5")
print(all(np.array_equal(a, b) for a, b in zip(before, model.get_weights())))
"""
    record = run(code)
    assert record["ok"], record["error"]
    assert record["stdout"] == "True\n"


def test_tf_data_dataset_and_generators_feed_fit():
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    x = np.ones((10, 2), np.float32)

    class Batches:                     # what tf.data.Dataset(...).batch(4) is to fit: an iterable of batches
        def __iter__(self):
            return iter([(x[i:i + 4], x[i:i + 4, :1]) for i in range(0, 10, 4)])
    history = model.fit(Batches(), epochs=2, verbose=0)
    assert history.params["steps"] == 3 and len(history.history["loss"]) == 2


def test_multi_input_multi_output_by_name():
    """The keras-io functional API guide's pattern: named Inputs fed by a dict, a loss per output
    (a dict by output layer name) with loss_weights, and each output's loss logged as '<name>_loss'."""
    a, b = keras.Input(shape=(3,), name="a"), keras.Input(shape=(2,), name="b")
    h = keras.layers.concatenate([a, b])
    p = keras.layers.Dense(1, name="priority")(h)
    d = keras.layers.Dense(2, name="department")(h)
    model = keras.Model(inputs=[a, b], outputs=[p, d])
    assert model.input_names == ["a", "b"] and model.output_names == ["priority", "department"]
    model.compile(optimizer="sgd", loss={"priority": keras.losses.BinaryCrossentropy(from_logits=True),
                                         "department": keras.losses.CategoricalCrossentropy(from_logits=True)},
                  loss_weights={"priority": 1.0, "department": 0.2})
    x = {"a": np.ones((8, 3), np.float32), "b": np.ones((8, 2), np.float32)}
    y = {"priority": np.ones((8, 1)), "department": np.eye(2)[np.arange(8) % 2]}
    history = model.fit(x, y, epochs=1, batch_size=4, verbose=0)
    assert sorted(history.history) == ["department_loss", "loss", "priority_loss"]
    total, priority, department = model.evaluate(x, y, verbose=0)
    assert total == pytest.approx(priority + 0.2 * department, rel=1e-5)
    assert [o.shape for o in model.predict(x, verbose=0)] == [(8, 1), (8, 2)]


def test_model_checkpoint_keeps_the_best_weights_in_memory(capsys):
    model = keras.Sequential([keras.Input((1,)), keras.layers.Dense(1, kernel_initializer="zeros")])
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    x = np.ones((4, 1), np.float32)
    check = keras.callbacks.ModelCheckpoint("best.weights.h5", monitor="loss", save_best_only=True,
                                            save_weights_only=True, verbose=1)
    model.fit(x, 2 * x, epochs=2, verbose=0, callbacks=[check])
    out = capsys.readouterr().out
    assert all(words in out for words in KERAS_CHECKPOINT)
    best = model.get_weights()
    model.set_weights([w * 0 for w in best])
    model.load_weights("best.weights.h5")
    assert all(np.array_equal(a, b) for a, b in zip(best, model.get_weights()))


def test_subclassed_summary_shows_build_shapes(capsys):
    """Keras shows a subclassed model's layers with the shapes of their build: batch None when fit
    built them, the real batch when a direct call did (checked against Keras 3.15)."""
    class Net(keras.Model):
        def __init__(self):
            super().__init__()
            self.a = keras.layers.Dense(4, activation="relu")

        def call(self, x):
            return self.a(x)

    fitted, called = Net(), Net()
    fitted.compile("sgd", "mse")
    fitted.fit(np.ones((10, 3)), np.ones((10, 4)), batch_size=4, verbose=0)
    called(np.ones((5, 3)))
    fitted.summary()
    called.summary()
    out = capsys.readouterr().out
    assert KERAS_SUMMARY_SHAPES[0] in out and KERAS_SUMMARY_SHAPES[1] in out


KERAS_CHILD = MLP + """print("==")
bar = keras.utils.Progbar(32, verbose=1)
bar.update(32, values=[("accuracy", 0.5), ("loss", 0.69314)], finalize=True)
bar = keras.utils.Progbar(3, verbose=2)
bar.update(3, values=[("loss", 0.0001234)], finalize=True)
print("==")
""" + EARLY_STOPPING + """print("==")
model = keras.Sequential([keras.Input((1,)), keras.layers.Dense(1, kernel_initializer="zeros")])
model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
x = np.ones((4, 1), np.float32)
check = keras.callbacks.ModelCheckpoint("best.weights.h5", monitor="loss", save_best_only=True,
                                        save_weights_only=True, verbose=1)
model.fit(x, 2 * x, epochs=2, verbose=0, callbacks=[check])
print("==")
class Net(keras.Model):
    def __init__(self):
        super().__init__()
        self.a = keras.layers.Dense(4, activation="relu")

    def call(self, x):
        return self.a(x)

fitted, called = Net(), Net()
fitted.compile("sgd", "mse")
fitted.fit(np.ones((10, 3)), np.ones((10, 4)), batch_size=4, verbose=0)
called(np.ones((5, 3)))
fitted.summary()
print("==")
called.summary()
"""


def _timings_as_dagscopes(line: str) -> str:
    """Keras' progress line with its colours and measured times as Dagscope prints them (0s, 0s/step)."""
    line = re.sub(r"\x1b\[[0-9;]*m", "", line)
    line = re.sub(r"\b\d+(\.\d+)?(s|ms|us)/step\b", "0s/step", line)
    return re.sub(r"(?<=[ ])\d+s(?= )", "0s", line)


@pytest.mark.oracle
def test_the_stored_lines_are_keras():
    stdout, _ = run_real_tensorflow(KERAS_CHILD)
    mlp, progress, early, checkpoint, fitted, called = stdout.split("==\n")
    # Keras redraws a progress line after \r (and backspaces); the last drawing of each line is what stays
    lines = [_timings_as_dagscopes(line.rsplit("\r", 1)[-1]) for line in mlp.split("\n") if line.strip()]
    assert lines[0] == "Epoch 1/2" and lines[2] == "Epoch 2/2" and len(lines) == 5, lines
    assert re.fullmatch(KERAS_MLP_EPOCH_LINE, lines[1]) and re.fullmatch(KERAS_MLP_EPOCH_LINE, lines[3]), lines
    assert lines[4] == KERAS_HISTORY_LINE
    assert [_timings_as_dagscopes(line.rsplit("\r", 1)[-1]) for line in progress.split("\n")
            if line.strip()] == KERAS_PROGRESS
    assert early == KERAS_EARLY_STOPPING
    assert all(words in checkpoint for words in KERAS_CHECKPOINT)
    assert KERAS_SUMMARY_SHAPES[0] in fitted and KERAS_SUMMARY_SHAPES[1] in called
