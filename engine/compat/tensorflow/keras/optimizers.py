"""`tf.keras.optimizers.SGD` and `Adam` (Keras' update rules), for GradientTape training loops.
The state (slots, the step count) lives in tf.Variables and the arithmetic runs as TF ops, so the
same code works eagerly and inside a tf.function (where it becomes graph nodes and the updates
are applied after every call)."""
from __future__ import annotations

import numpy as np

from engine.compat.tensorflow import dtypes, ops
from engine.compat.tensorflow import tape as tf_tape
from engine.compat.tensorflow._surface import unsupported_names
from engine.compat.tensorflow.variables import Variable
from engine.errors import UnsupportedError


class Optimizer:
    def __init__(self, learning_rate=0.01, name=None, **kwargs):
        self.learning_rate = float(learning_rate)
        self.iterations = Variable(0, dtype=dtypes.int64, trainable=False, name="iteration")
        self._slots: dict = {}              # (id(variable), slot name) -> tf.Variable

    def _slot(self, var, name: str) -> Variable:
        key = (id(var), name)
        if key not in self._slots:        # created on first use, as Keras does (a tf.function's first trace)
            self._slots[key] = Variable(np.zeros(var.shape.as_list(), var.dtype.np), trainable=False,
                                        name=f"{var._name}/{name}")
        return self._slots[key]

    def apply_gradients(self, grads_and_vars, **kwargs):
        pairs = [(g, v) for g, v in grads_and_vars]
        if all(g is None for g, _ in pairs):
            raise ValueError(f"No gradients provided for any variable: {[v.name for _, v in pairs]}.")
        self.iterations.assign_add(1)
        for g, v in pairs:
            if g is not None:
                self._update(v, ops.convert_to_tensor(g))
        return self.iterations

    def minimize(self, loss, var_list, tape=None):
        if tape is None:
            if not callable(loss):
                raise ValueError("`tape` is required when a `Tensor` loss is passed.")
            with tf_tape.GradientTape() as tape:
                loss = loss()
        var_list = var_list() if callable(var_list) else var_list
        grads = tape.gradient(loss, var_list)
        return self.apply_gradients(zip(grads, var_list))


class SGD(Optimizer):
    """velocity = momentum * velocity - lr * g; var += velocity (plain var -= lr * g without momentum)."""

    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, name="SGD", **kwargs):
        super().__init__(learning_rate, name)
        if nesterov:
            raise UnsupportedError("SGD(nesterov=True) is not supported by Dagscope")
        self.momentum = float(momentum)

    def _update(self, var, g) -> None:
        if self.momentum == 0.0:
            var.assign_sub(g * self.learning_rate)
            return
        velocity = self._slot(var, "momentum")
        velocity.assign(velocity * self.momentum - g * self.learning_rate)
        var.assign_add(velocity)


class Adam(Optimizer):
    """Keras' Adam: m, v running moments; var -= lr * sqrt(1-b2^t)/(1-b1^t) * m / (sqrt(v) + eps)."""

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, amsgrad=False, name="Adam",
                 **kwargs):
        super().__init__(learning_rate, name)
        if amsgrad:
            raise UnsupportedError("Adam(amsgrad=True) is not supported by Dagscope")
        self.beta_1, self.beta_2, self.epsilon = float(beta_1), float(beta_2), float(epsilon)

    def _update(self, var, g) -> None:
        t = ops.cast(self.iterations, var.dtype)          # already counts this step
        alpha = self.learning_rate * ops.sqrt(1.0 - ops.pow(self.beta_2, t)) / (1.0 - ops.pow(self.beta_1, t))
        m, v = self._slot(var, "m"), self._slot(var, "v")
        m.assign(m + (g - m) * (1.0 - self.beta_1))
        v.assign(v + (g * g - v) * (1.0 - self.beta_2))
        var.assign_sub(m * alpha / (ops.sqrt(v) + self.epsilon))


__getattr__ = unsupported_names("tf.keras.optimizers", globals())
