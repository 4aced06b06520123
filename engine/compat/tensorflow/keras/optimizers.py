"""`keras.optimizers`: SGD (momentum, nesterov), Adam, RMSprop, Adagrad with Keras 3's update rules,
for `fit` and for GradientTape training loops (`apply_gradients`, or Keras 3's `apply`); TF 2.x's
`tf.optimizers` is this module.
The state (slots, the step count) lives in tf.Variables and the arithmetic runs as TF ops, so the
same code works eagerly and inside a tf.function (where it becomes graph nodes and the updates
are applied after every call)."""
from __future__ import annotations

import numpy as np

from engine.compat.tensorflow import dtypes, ops
from engine.compat.tensorflow._surface import unsupported_names
from engine.compat.tensorflow.variables import Variable
from engine.errors import UnsupportedError


class Optimizer:
    def __init__(self, learning_rate=0.01, name=None, **kwargs):
        for unsupported in ("clipnorm", "clipvalue", "global_clipnorm", "weight_decay"):
            if kwargs.get(unsupported) is not None:
                raise UnsupportedError(f"{type(self).__name__}({unsupported}=...) is not supported by Dagscope")
        if callable(learning_rate):
            raise UnsupportedError("learning-rate schedules are not supported by Dagscope; pass a number (or "
                                   "change optimizer.learning_rate in a callback)")
        self.learning_rate = float(learning_rate)
        self.name = name or type(self).__name__.lower()
        self.iterations = Variable(0, dtype=dtypes.int64, trainable=False, name="iteration")
        self._slots: dict = {}              # (id(variable), slot name) -> tf.Variable

    @property
    def lr(self) -> float:
        return self.learning_rate

    @lr.setter
    def lr(self, value) -> None:
        self.learning_rate = float(value)

    @property
    def built(self) -> bool:
        return bool(self._slots) or int(self.iterations.numpy()) > 0

    @property
    def variables(self) -> list:
        """Keras 3's: the iteration count, the learning rate, then the slots (for model.summary)."""
        lr = Variable(np.float32(self.learning_rate), trainable=False, name="learning_rate")
        return [self.iterations, lr] + list(self._slots.values())

    def apply(self, grads, trainable_variables=None):
        """Keras 3's `optimizer.apply(grads, vars)`."""
        return self.apply_gradients(zip(grads, trainable_variables))

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

    # (no `minimize`: Keras 3's optimizers have none, so `tf.optimizers.Adam().minimize(...)` fails in
    # TF 2.21 with AttributeError, as it does here; TF1's tf.train optimizers have it: training.py)


class SGD(Optimizer):
    """velocity = momentum * velocity - lr * g; var += velocity (plain var -= lr * g without momentum)."""

    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, name="SGD", **kwargs):
        super().__init__(learning_rate, name, **kwargs)
        self.momentum, self.nesterov = float(momentum), bool(nesterov)

    def _update(self, var, g) -> None:
        if self.momentum == 0.0:
            var.assign_sub(g * self.learning_rate)
            return
        velocity = self._slot(var, "momentum")
        velocity.assign(velocity * self.momentum - g * self.learning_rate)
        if self.nesterov:                  # var += momentum * velocity - lr * g
            var.assign_add(velocity * self.momentum - g * self.learning_rate)
        else:
            var.assign_add(velocity)


class Adam(Optimizer):
    """Keras' Adam: m, v running moments; var -= lr * sqrt(1-b2^t)/(1-b1^t) * m / (sqrt(v) + eps)."""

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, amsgrad=False, name="Adam",
                 **kwargs):
        super().__init__(learning_rate, name, **kwargs)
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


class RMSprop(Optimizer):
    """Keras 3: v = rho * v + (1 - rho) * g^2; var -= lr * g / sqrt(v + eps) (with momentum, through a
    velocity; centered subtracts the mean gradient's square)."""

    def __init__(self, learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-7, centered=False, name="RMSprop",
                 **kwargs):
        super().__init__(learning_rate, name, **kwargs)
        self.rho, self.momentum, self.epsilon, self.centered = float(rho), float(momentum), float(epsilon), centered

    def _update(self, var, g) -> None:
        v = self._slot(var, "velocity")
        v.assign(v * self.rho + g * g * (1.0 - self.rho))
        denominator = v
        if self.centered:
            avg = self._slot(var, "average_gradient")
            avg.assign(avg * self.rho + g * (1.0 - self.rho))
            denominator = v - avg * avg
        increment = g * self.learning_rate / ops.sqrt(denominator + self.epsilon)
        if self.momentum > 0:
            m = self._slot(var, "momentum")
            m.assign(m * self.momentum + increment)
            var.assign_sub(m)
        else:
            var.assign_sub(increment)


class Adagrad(Optimizer):
    """Keras 3: acc += g^2; var -= lr * g / sqrt(acc + eps), acc starting at 0.1."""

    def __init__(self, learning_rate=0.001, initial_accumulator_value=0.1, epsilon=1e-7, name="Adagrad", **kwargs):
        super().__init__(learning_rate, name, **kwargs)
        self.initial, self.epsilon = float(initial_accumulator_value), float(epsilon)

    def _update(self, var, g) -> None:
        key = (id(var), "accumulator")
        if key not in self._slots:
            self._slots[key] = Variable(np.full(var.shape.as_list(), self.initial, var.dtype.np), trainable=False,
                                        name=f"{var._name}/accumulator")
        acc = self._slots[key]
        acc.assign(acc + g * g)
        var.assign_sub(g * self.learning_rate / ops.sqrt(acc + self.epsilon))


_BY_NAME = {"sgd": SGD, "adam": Adam, "rmsprop": RMSprop, "adagrad": Adagrad}


def get(identifier):
    """An optimizer from a name ('adam', 'sgd', 'rmsprop', 'adagrad') or an Optimizer."""
    if isinstance(identifier, Optimizer):
        return identifier
    key = str(identifier).lower()
    if key not in _BY_NAME:
        raise UnsupportedError(f"optimizer {identifier!r} is not supported by Dagscope; supported: "
                               f"{', '.join(sorted(_BY_NAME))}")
    return _BY_NAME[key]()


__getattr__ = unsupported_names("tf.keras.optimizers", globals())
