# model.summary() as Keras 3 prints it (Sequential, functional chains and graphs, subclassed, unbuilt,
# after fit with the optimizer's parameters), the layers' names and weights' paths, shapes.
import numpy as np
import keras
from keras import layers

model = keras.Sequential([
    keras.Input(shape=(28, 28, 1)),
    layers.Conv2D(8, 3, activation="relu"),
    layers.MaxPooling2D(),
    layers.Conv2D(16, 3, padding="same", activation="relu"),
    layers.BatchNormalization(),
    layers.GlobalAveragePooling2D(),
    layers.Dropout(0.2),
    layers.Dense(10, activation="softmax"),
], name="small_cnn")
model.summary()
print([layer.name for layer in model.layers])
print([w.path for w in model.weights])
print(len(model.trainable_weights), len(model.non_trainable_weights), model.count_params())

unbuilt = keras.Sequential([layers.Dense(3), layers.Dense(1)])
unbuilt.summary()
unbuilt.compile(optimizer="adam", loss="mse")
unbuilt.fit(np.zeros((4, 2)), np.zeros((4, 1)), verbose=0)
unbuilt.summary()

text = keras.Input(shape=(None,), dtype="int32", name="tokens")
emb = layers.Embedding(100, 8)(text)
seq = layers.LSTM(6, return_sequences=True)(emb)
last = layers.GRU(4)(seq)
side = keras.Input(shape=(3,), name="side")
merged = layers.concatenate([last, layers.Dense(4, activation="relu")(side)])
out = layers.Dense(1, activation="sigmoid", name="score")(merged)
graph = keras.Model(inputs=[text, side], outputs=out)
graph.summary()
print(emb.shape, seq.shape, last.shape, merged.shape, out.shape)
print(graph.name, [layer.name for layer in graph.layers])

inputs = keras.Input(shape=(8,))
x = layers.Dense(8, activation="relu")(inputs)
residual = layers.add([x, inputs])
encoder = keras.Model(inputs, layers.Dense(2)(residual), name="encoder")
encoder.summary()

code = keras.Input(shape=(4,))
up = layers.Reshape((2, 2, 1))(code)
up = layers.Conv2DTranspose(4, 3, strides=2, padding="same")(up)
up = layers.UpSampling2D()(up)
up = layers.Conv2D(1, 3, padding="same", activation="sigmoid")(up)
decoder = keras.Model(code, up)
decoder.summary()


class TwoLayers(keras.Model):
    def __init__(self):
        super().__init__()
        self.hidden = layers.Dense(5, activation="relu")
        self.out = layers.Dense(2)

    def call(self, x):
        return self.out(self.hidden(x))


sub = TwoLayers()
print(sub(np.ones((3, 4), "float32")).shape, sub.name, [layer.name for layer in sub.layers])
sub.summary()

rnn = keras.Sequential([keras.Input((10, 3)), layers.SimpleRNN(4, return_sequences=True), layers.Conv1D(3, 2),
                        layers.GlobalAveragePooling1D(), layers.RepeatVector(2), layers.Flatten(), layers.LeakyReLU()])
rnn.summary()
