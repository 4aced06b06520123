"""`tf.keras.Sequential` and subclassed `tf.keras.Model`: layers called in order, or your `call`."""
from __future__ import annotations

from engine.compat.tensorflow.keras.layers import Layer
from engine.errors import UnsupportedError


class Model(Layer):
    """Subclass it and define `call`; its layers' variables are found through its attributes."""

    def compile(self, *args, **kwargs):
        raise UnsupportedError("Model.compile/fit are not supported by Dagscope; write the training loop with "
                               "tf.GradientTape and optimizer.apply_gradients (each step's graph is shown)")

    fit = evaluate = compile

    def predict(self, x, **kwargs):
        return self(x).numpy()


class Sequential(Model):
    def __init__(self, layers=None, name=None):
        super().__init__(name=name)
        self.layers = list(layers or [])

    def add(self, layer) -> None:
        self.layers.append(layer)

    def call(self, inputs):
        x = inputs
        for layer in self.layers:
            x = layer(x)
        return x

    def build(self, input_shape) -> None:
        self.built = True
