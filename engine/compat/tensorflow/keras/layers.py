"""`keras.layers`: every layer Dagscope's Keras has (core, convolution and pooling, recurrent),
`keras.Input`, and the merge functions `add` / `concatenate` / ..."""
from __future__ import annotations

from engine.compat.tensorflow._surface import unsupported_names
from engine.compat.tensorflow.keras.base import Input, InputLayer, Layer  # noqa: F401
from engine.compat.tensorflow.keras.layers_conv import (AveragePooling1D, AveragePooling2D, Conv1D,  # noqa: F401
                                                        Conv2D, Conv2DTranspose, GlobalAveragePooling1D,
                                                        GlobalAveragePooling2D, GlobalMaxPooling1D,
                                                        GlobalMaxPooling2D, MaxPooling1D, MaxPooling2D, UpSampling1D,
                                                        UpSampling2D, ZeroPadding2D)
from engine.compat.tensorflow.keras.layers_core import (Activation, Add, Average, BatchNormalization,  # noqa: F401
                                                        Concatenate, Dense, Dot, Dropout, Embedding, Flatten,
                                                        Identity, Lambda, LayerNormalization, LeakyReLU, Maximum,
                                                        Minimum, Multiply, Normalization, Permute, ReLU, RepeatVector, Rescaling,
                                                        Reshape, Softmax, Subtract, add, average, concatenate,
                                                        maximum, minimum, multiply, subtract)
from engine.compat.tensorflow.keras.layers_rnn import GRU, LSTM, Bidirectional, SimpleRNN  # noqa: F401

Convolution1D, Convolution2D, Convolution2DTranspose = Conv1D, Conv2D, Conv2DTranspose
MaxPool1D, MaxPool2D, AvgPool1D, AvgPool2D = MaxPooling1D, MaxPooling2D, AveragePooling1D, AveragePooling2D
GlobalAvgPool1D, GlobalAvgPool2D = GlobalAveragePooling1D, GlobalAveragePooling2D
GlobalMaxPool1D, GlobalMaxPool2D = GlobalMaxPooling1D, GlobalMaxPooling2D

__getattr__ = unsupported_names("tf.keras.layers", globals())
