# The Keras guides' patterns: a custom train_step with tf.GradientTape, a Loss subclass, callbacks
# (EarlyStopping with restore_best_weights, a Callback, LambdaCallback), tf.data as fit's input,
# save_weights / load_weights, evaluate(return_dict=True), History (Keras 3 / TF 2.21).
import numpy as np
import tensorflow as tf
import keras
from keras import layers


def fixed(model):
    model.set_weights([np.sin(np.arange(w.size) * 0.37 + k).reshape(w.shape).astype("float32") * 0.5
                       for k, w in enumerate(model.get_weights())])


x = np.sin(np.arange(48) * 0.7).reshape(16, 3).astype("float32")
y = (x @ np.array([[1.0], [-2.0], [0.5]], "float32")) + 0.1


class CustomModel(keras.Model):
    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(y=y, y_pred=y_pred)
        gradients = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply(gradients, self.trainable_variables)
        for metric in self.metrics:
            if metric.name == "loss":
                metric.update_state(loss)
            else:
                metric.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}


inputs = keras.Input(shape=(3,))
model = CustomModel(inputs, layers.Dense(1)(inputs))
fixed(model)
model.compile(optimizer=keras.optimizers.SGD(0.05), loss="mse", metrics=["mae"])
history = model.fit(x, y, epochs=3, batch_size=4, shuffle=False, verbose=0)
print(sorted(history.history), history.params)
for key in sorted(history.history):
    print(key, " ".join(f"{v:.6e}" for v in history.history[key]))


class ScaledMSE(keras.losses.Loss):
    def __init__(self, scale=2.0, name="scaled_mse"):
        super().__init__(name=name)
        self.scale = scale

    def call(self, y_true, y_pred):
        return self.scale * keras.ops.mean(keras.ops.square(y_true - y_pred), axis=-1)


class Recorder(keras.callbacks.Callback):
    def on_train_begin(self, logs=None):
        self.seen = []

    def on_epoch_end(self, epoch, logs=None):
        self.seen.append((epoch, sorted(logs)))


model = keras.Sequential([keras.Input((3,)), layers.Dense(4, activation="tanh"), layers.Dense(1)])
fixed(model)
model.compile(optimizer=keras.optimizers.SGD(0.5), loss=ScaledMSE())
recorder = Recorder()
ends = []
stop = keras.callbacks.EarlyStopping(monitor="val_loss", patience=1, restore_best_weights=True, verbose=1)
history = model.fit(x, y, epochs=30, batch_size=16, shuffle=False, validation_data=(x[:4], y[:4]), verbose=0,
                    callbacks=[recorder, keras.callbacks.LambdaCallback(on_epoch_end=lambda e, logs: ends.append(e)),
                               stop])
print(len(history.history["loss"]), stop.stopped_epoch, recorder.seen[:2], ends == history.epoch)
print(" ".join(f"{v:.6e}" for v in history.history["val_loss"]))
print(f"{min(history.history['val_loss']):.6e}", f"{model.evaluate(x[:4], y[:4], verbose=0):.6e}")

dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(5)
model = keras.Sequential([keras.Input((3,)), layers.Dense(1)])
fixed(model)
model.compile(optimizer="adam", loss="mae", metrics=["mse"])
history = model.fit(dataset, epochs=2, verbose=0)
print(history.params, " ".join(f"{v:.6e}" for v in history.history["loss"]))
logs = model.evaluate(dataset, verbose=0, return_dict=True)
print(sorted(logs), f"{logs['loss']:.6e}")
print(model.predict(dataset, verbose=0).shape)

before = model.get_weights()
model.save_weights("checkpoint.weights.h5")
model.fit(x, y, epochs=1, verbose=0)
changed = not all(np.array_equal(a, b) for a, b in zip(before, model.get_weights()))
model.load_weights("checkpoint.weights.h5")
print(changed, all(np.array_equal(a, b) for a, b in zip(before, model.get_weights())))
