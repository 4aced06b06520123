"""`keras.datasets`: every dataset there is a download (mnist, cifar10, imdb ...), which a run cannot
make; each name fails saying so and what to use instead."""
from __future__ import annotations

from engine.compat.scope import sentence
from engine.errors import UnsupportedError

_NAMES = ("mnist", "fashion_mnist", "cifar10", "cifar100", "imdb", "reuters", "boston_housing",
          "california_housing")


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(name)
    known = f"keras.datasets.{name}" if name in _NAMES else f"keras.datasets.{name} (not a Keras dataset either)"
    # not an AttributeError: `from keras.datasets import mnist` would turn that into a bare ImportError
    raise UnsupportedError(
        f"{known} is not supported by Dagscope. {sentence('keras.datasets')} Make small arrays of the same "
        "shapes instead, e.g. x_train = np.random.rand(256, 28, 28).astype('float32') and "
        "y_train = np.random.randint(0, 10, 256) for MNIST.")
