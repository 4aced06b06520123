# Every Keras layer Dagscope has, on fixed weights and inputs: the output and the gradients of a
# weighted sum of it with respect to the input and each weight (Keras 3 / TF 2.21 for the numbers).
import numpy as np
import tensorflow as tf
import keras
from keras import layers


def probe(shape):
    return np.cos(np.arange(int(np.prod(shape))) * 0.7).reshape(shape).astype("float32")


def show(name, a):
    a = np.asarray(tf.convert_to_tensor(a), np.float64)        # (an Embedding's gradient is IndexedSlices)
    print(" ", name, a.shape, f"{np.sum(a * probe(a.shape)):.6e}", f"{np.sum(a * a):.6e}")


def check(title, layer, shape, training=False, integer=False, weights_only=False):
    if integer:
        x = tf.constant((np.arange(int(np.prod(shape))) * 7 % 10).reshape(shape), dtype="int32")
    else:
        x = tf.constant(np.sin(np.arange(int(np.prod(shape))) * 0.31 + 0.2).reshape(shape).astype("float32"))
    layer(x)                                         # builds it; then weights of our choosing
    values = []
    for k, w in enumerate(layer.weights):
        v = np.sin(np.arange(int(np.prod(w.shape))) * 0.37 + k).reshape(w.shape) * 0.5
        if "variance" in w.name:
            v = np.abs(v) + 0.5
        values.append(v.astype(w.dtype))
    layer.set_weights(values)
    with tf.GradientTape() as tape:
        if not integer:
            tape.watch(x)
        y = layer(x, training=training)
        loss = tf.reduce_sum(y * probe(y.shape))
    sources = ([] if integer else [x]) + list(layer.trainable_weights)
    grads = tape.gradient(loss, sources)
    print(title, [tuple(w.shape) for w in layer.weights])
    show("out", y)
    for name, g in zip((["x"] if not integer else []) + [w.name for w in layer.trainable_weights], grads):
        show("d/" + name, g)


check("Dense", layers.Dense(3, activation="tanh"), (4, 5))
check("Dense 3-D", layers.Dense(2), (2, 3, 4))
check("Conv2D valid s2", layers.Conv2D(3, 3, strides=2, activation="relu"), (2, 7, 7, 2))
check("Conv2D same s2", layers.Conv2D(2, (3, 2), strides=2, padding="same"), (1, 6, 5, 3))
check("Conv2D same", layers.Conv2D(2, 3, padding="same", use_bias=False), (1, 4, 4, 1))
check("Conv1D causal", layers.Conv1D(2, 3, padding="causal"), (2, 6, 3))
check("Conv1D same s2", layers.Conv1D(3, 4, strides=2, padding="same"), (1, 7, 2))
check("Conv2DTranspose same s2", layers.Conv2DTranspose(2, 3, strides=2, padding="same"), (1, 3, 3, 2))
check("Conv2DTranspose valid s2", layers.Conv2DTranspose(1, 2, strides=2), (1, 2, 3, 2))
check("MaxPooling2D", layers.MaxPooling2D(), (1, 4, 6, 2))
check("MaxPooling2D same", layers.MaxPooling2D(3, strides=2, padding="same"), (1, 5, 5, 1))
check("AveragePooling2D", layers.AveragePooling2D(2), (2, 4, 4, 1))
check("MaxPooling1D", layers.MaxPooling1D(2), (1, 6, 2))
check("GlobalAveragePooling2D", layers.GlobalAveragePooling2D(), (2, 3, 3, 2))
check("GlobalAveragePooling1D", layers.GlobalAveragePooling1D(), (2, 5, 3))
check("GlobalMaxPooling2D", layers.GlobalMaxPooling2D(), (2, 3, 3, 2))
check("UpSampling2D", layers.UpSampling2D((2, 3)), (1, 2, 2, 2))
check("Flatten", layers.Flatten(), (2, 2, 3))
check("Reshape", layers.Reshape((3, 2)), (2, 6))
check("RepeatVector", layers.RepeatVector(3), (2, 4))
check("BatchNormalization training", layers.BatchNormalization(), (6, 3), training=True)
check("BatchNormalization inference", layers.BatchNormalization(), (6, 3))
check("BatchNormalization conv", layers.BatchNormalization(), (2, 3, 3, 2), training=True)
check("LayerNormalization", layers.LayerNormalization(), (3, 4))
check("Normalization", layers.Normalization(mean=[0.5, -1.0], variance=[2.0, 0.25]), (3, 2))
check("Embedding", layers.Embedding(10, 3), (2, 4), integer=True)
check("SimpleRNN", layers.SimpleRNN(3, return_sequences=True), (2, 4, 2))
check("LSTM", layers.LSTM(3), (2, 5, 2))
check("LSTM sequences", layers.LSTM(2, return_sequences=True), (1, 3, 3))
check("GRU", layers.GRU(3), (2, 4, 2))
check("GRU sequences", layers.GRU(2, return_sequences=True), (1, 3, 3))
check("Bidirectional LSTM", layers.Bidirectional(layers.LSTM(2)), (2, 3, 2))
check("LeakyReLU", layers.LeakyReLU(), (2, 5))
check("ReLU", layers.ReLU(max_value=0.5), (2, 5))
check("Softmax", layers.Softmax(), (2, 5))
for name in ("relu", "sigmoid", "tanh", "softmax", "softplus", "elu", "selu", "gelu", "swish", "relu6"):
    check("Activation " + name, layers.Activation(name), (2, 5))
check("Dropout at inference", layers.Dropout(0.5), (2, 3))
