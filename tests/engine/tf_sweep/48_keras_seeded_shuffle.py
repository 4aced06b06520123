# Keras 3's fit shuffles as on TensorFlow: with a global seed, tf.random.shuffle of the indices with op
# seeds (seed, 0) — the same order every epoch and every fit; a seeded fit with Dropout and shuffle
# prints Keras's losses; tf.random.shuffle with an op seed.
import numpy as np
import keras
import tensorflow as tf
from keras import layers

seen = []


class Recorder(keras.Model):
    def train_step(self, data):
        x, y = data
        seen.append(x.numpy().reshape(-1).astype(int).tolist())
        return {"n": tf.constant(0.0)}


for seed in (3, 7, 0):
    keras.utils.set_random_seed(seed)
    inp = keras.Input(shape=(1,))
    model = Recorder(inp, layers.Dense(1)(inp))
    model.compile(optimizer="sgd", loss="mse", run_eagerly=True)
    x = np.arange(10).reshape(10, 1).astype("float32")
    seen.clear()
    model.fit(x, x, batch_size=4, epochs=2, verbose=0)
    print(seed, seen)

keras.utils.set_random_seed(3)
x = np.linspace(-1, 1, 64 * 4, dtype="float32").reshape(64, 4)
y = (x.sum(axis=1, keepdims=True) > 0).astype("float32")
model = keras.Sequential([keras.Input(shape=(4,)), layers.Dense(8, activation="relu"), layers.Dropout(0.5),
                          layers.Dense(1)])
model.compile(optimizer="sgd", loss="mse")
history = model.fit(x, y, epochs=3, batch_size=16, verbose=0)
print([round(v, 6) for v in history.history["loss"]])

tf.random.set_seed(5)
print(tf.random.shuffle(tf.range(12), seed=4), tf.random.shuffle([[1, 2], [3, 4], [5, 6]], seed=1))
