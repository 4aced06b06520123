# Bidirectional makes both directions anew from the layer's config, each with its own seeds (Keras 3),
# and a recurrent layer's weights belong to its cell ('.../lstm_cell/kernel').
import numpy as np
import keras
from keras import layers
keras.utils.set_random_seed(11)
bi = layers.Bidirectional(layers.LSTM(2, return_sequences=True))
d = layers.Dense(1)
seq = np.linspace(-1, 1, 12, dtype="float32").reshape(2, 3, 2)
print(np.round(bi(seq).numpy(), 5))
print(np.round(d(np.ones((1, 3), "float32")).numpy(), 5))
print([w.path for w in bi.weights])
m = keras.Sequential([keras.Input((3, 2)), layers.Bidirectional(layers.GRU(2)), layers.Dense(1)])
m.summary()
