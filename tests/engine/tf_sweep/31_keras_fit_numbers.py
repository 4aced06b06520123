# compile / fit / evaluate / predict with fixed initial weights and no shuffling: History's numbers,
# evaluate's list, predict's values, for several losses, metrics and optimizers (Keras 3 / TF 2.21).
import numpy as np
import keras
from keras import layers


def fixed(model):
    model.set_weights([np.sin(np.arange(w.size) * 0.37 + k).reshape(w.shape).astype("float32") * 0.5
                       for k, w in enumerate(model.get_weights())])


def report(history, model, x, y):
    for key, values in history.history.items():
        print(" ", key, " ".join(f"{v:.6e}" for v in values))
    print("  evaluate", " ".join(f"{v:.6e}" for v in np.atleast_1d(model.evaluate(x, y, verbose=0))))
    p = model.predict(x[:3], verbose=0)
    print("  predict", p.shape, f"{float(np.sum(p * np.cos(np.arange(p.size)).reshape(p.shape))):.6e}")


x = np.sin(np.arange(60) * 0.7).reshape(20, 3).astype("float32")
y_bin = (x[:, 0] + 0.5 * x[:, 1] > 0).astype("float32")
y_cls = (np.arange(20) * 7) % 3
y_reg = (x @ np.array([[1.0], [-2.0], [0.5]], "float32")) + 0.1

print("binary, adam")
model = keras.Sequential([keras.Input((3,)), layers.Dense(4, activation="relu"), layers.Dense(1, activation="sigmoid")])
fixed(model)
model.compile(optimizer=keras.optimizers.Adam(0.05), loss="binary_crossentropy", metrics=["accuracy"])
report(model.fit(x, y_bin, epochs=3, batch_size=8, shuffle=False, validation_split=0.25, verbose=0), model, x, y_bin)

print("sparse categorical from logits, sgd momentum")
inputs = keras.Input((3,))
h = layers.Dense(5, activation="tanh")(inputs)
model = keras.Model(inputs, layers.Dense(3)(h))
fixed(model)
model.compile(optimizer=keras.optimizers.SGD(0.1, momentum=0.9),
              loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
report(model.fit(x, y_cls, epochs=3, batch_size=6, shuffle=False, validation_data=(x[:5], y_cls[:5]), verbose=0),
       model, x, y_cls)

print("categorical, rmsprop, nesterov sgd")
onehot = keras.utils.to_categorical(y_cls, 3)
print(" ", onehot[:3].tolist(), onehot.dtype)
for opt in (keras.optimizers.RMSprop(0.01), keras.optimizers.SGD(0.05, momentum=0.5, nesterov=True)):
    model = keras.Sequential([keras.Input((3,)), layers.Dense(3, activation="softmax")])
    fixed(model)
    model.compile(optimizer=opt, loss="categorical_crossentropy", metrics=["accuracy", "categorical_accuracy"])
    report(model.fit(x, onehot, epochs=2, batch_size=10, shuffle=False, verbose=0), model, x, onehot)

print("regression, mse and mae, a regularizer")
model = keras.Sequential([keras.Input((3,)), layers.Dense(4, activation="elu", kernel_regularizer=keras.regularizers.l2(0.01)),
                          layers.BatchNormalization(), layers.Dense(1)])
fixed(model)
model.compile(optimizer="adam", loss="mse", metrics=["mae"])
report(model.fit(x, y_reg, epochs=3, batch_size=7, shuffle=False, verbose=0), model, x, y_reg)
print("  moving mean", f"{float(np.sum(model.layers[1].moving_mean.numpy())):.6e}")

print("conv and recurrent")
images = np.cos(np.arange(20 * 36) * 0.3).reshape(20, 6, 6, 1).astype("float32")
model = keras.Sequential([keras.Input((6, 6, 1)), layers.Conv2D(2, 3, activation="relu"), layers.MaxPooling2D(),
                          layers.Flatten(), layers.Dense(3)])
fixed(model)
model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
report(model.fit(images, y_cls, epochs=2, batch_size=10, shuffle=False, verbose=0), model, images, y_cls)
tokens = (np.arange(20 * 5) * 3 % 7).reshape(20, 5)
model = keras.Sequential([keras.Input((5,)), layers.Embedding(7, 3), layers.GRU(4), layers.Dense(1, activation="sigmoid")])
fixed(model)
# (SGD: TensorFlow's gradient of an embedding table is sparse, and Keras' RMSprop and Adam square each
# occurrence's row of it before summing, which Dagscope's dense gradient does not reproduce)
model.compile(optimizer=keras.optimizers.SGD(0.5), loss="binary_crossentropy", metrics=["accuracy"])
report(model.fit(tokens, y_bin, epochs=2, batch_size=10, shuffle=False, verbose=0), model, tokens, y_bin)
