# A seeded Keras program: initial weights (glorot_uniform, random_normal, Embedding's uniform,
# the recurrent layers' orthogonal kernels) and Dropout's masks are TensorFlow's Philox draws, so
# the printed numbers are Keras 3's; a full-batch fit (shuffling one batch changes no number). (No
# Dropout inside fit: Keras compiles its train step with XLA, whose stateless random numbers are
# ThreeFry's rather than the Philox ones eager Keras and Dagscope draw.)
import numpy as np
import keras
from keras import layers
keras.utils.set_random_seed(42)
model = keras.Sequential([keras.Input((4,)), layers.Dense(3, activation="relu"), layers.Dropout(0.5),
                          layers.Dense(2, kernel_initializer="random_normal"), ])
emb = layers.Embedding(5, 2)
rnn = layers.SimpleRNN(2)
lstm = layers.LSTM(2)
gru = layers.GRU(2)
conv = layers.Conv2D(2, 2)
x = np.linspace(-1, 1, 8, dtype="float32").reshape(2, 4)
print(np.round(model(x).numpy(), 5))
print(np.round(model(x, training=True).numpy(), 5))
print(np.round(model(x, training=True).numpy(), 5))
print(np.round(emb(np.array([[0, 4]])).numpy(), 5))
seq = np.linspace(-1, 1, 12, dtype="float32").reshape(2, 3, 2)
print(np.round(rnn(seq).numpy(), 5), np.round(lstm(seq).numpy(), 5), np.round(gru(seq).numpy(), 5))
print(np.round(conv(np.ones((1, 3, 3, 1), "float32")).numpy().ravel(), 5))
print(np.round(lstm.weights[1].numpy(), 5))

keras.utils.set_random_seed(7)
x = np.sin(np.arange(40) * 0.7).reshape(20, 2).astype("float32")
y = (x[:, 0] > x[:, 1]).astype("float32")
net = keras.Sequential([keras.Input((2,)), layers.Dense(8, activation="relu"),
                        layers.Dense(1, activation="sigmoid")])
net.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
history = net.fit(x, y, epochs=4, batch_size=32, verbose=0)
for key in sorted(history.history):
    print(key, " ".join(f"{v:.5e}" for v in history.history[key]))

keras.utils.set_random_seed(3)
he = layers.Conv2D(2, 3, kernel_initializer="he_normal")
glorot = layers.Dense(3, kernel_initializer="glorot_normal")
lecun = layers.Dense(2, kernel_initializer=keras.initializers.TruncatedNormal(stddev=0.1))
print(np.round(he(np.ones((1, 3, 3, 2), "float32")).numpy().ravel(), 5))
print(np.round(glorot(np.ones((1, 4), "float32")).numpy(), 5), np.round(lecun(np.ones((1, 4), "float32")).numpy(), 5))
