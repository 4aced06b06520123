"""`keras.utils`: set_random_seed, to_categorical, normalize, plot-free helpers."""
from __future__ import annotations

import random as _random

import numpy as np

from engine.compat.tensorflow import random as tf_random
from engine.compat.tensorflow._surface import unsupported_names
from engine.errors import UnsupportedError


def set_random_seed(seed) -> None:
    """Seeds Python's `random` (where Keras 3 takes its initializers' and Dropout's seeds), numpy's
    global stream and TF's (fit's shuffle draws from the run's numpy stream), as Keras does."""
    seed = int(seed)
    _random.seed(seed)
    np.random.seed(seed)
    tf_random.set_seed(seed)


def to_categorical(x, num_classes=None):
    """Class ids -> one-hot rows (float64, as Keras 3's numpy result); a trailing axis of 1 is dropped first."""
    x = np.array(getattr(x, "array", x), dtype="int64")
    shape = x.shape
    if len(shape) > 1 and shape[-1] == 1:
        shape = shape[:-1]
    x = x.reshape(-1)
    if num_classes is None:
        num_classes = int(np.max(x)) + 1
    out = np.zeros((x.shape[0], int(num_classes)))
    out[np.arange(x.shape[0]), x] = 1
    return out.reshape(shape + (int(num_classes),))


def normalize(x, axis=-1, order=2):
    arr = np.asarray(getattr(x, "array", x), dtype=np.float32)
    norm = np.atleast_1d(np.linalg.norm(arr, order, axis))
    norm[norm == 0] = 1
    return arr / np.expand_dims(norm, axis)


def plot_model(*args, **kwargs):
    raise UnsupportedError("keras.utils.plot_model is not supported by Dagscope (it writes an image with graphviz); "
                           "the page draws the model's graph after a call or a fit")


__getattr__ = unsupported_names("tf.keras.utils", globals())
