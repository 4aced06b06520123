"""`keras.regularizers`: penalties on a weight, added to the loss `fit` minimises (model.losses)."""
from __future__ import annotations

from engine.compat.tensorflow import ops
from engine.compat.tensorflow._surface import unsupported_names
from engine.errors import UnsupportedError


class Regularizer:
    def __call__(self, x):
        return 0.0

    def get_config(self) -> dict:
        return {}


class L1L2(Regularizer):
    def __init__(self, l1=0.0, l2=0.0):
        self.l1, self.l2 = float(l1), float(l2)

    def __call__(self, x):
        x = ops.convert_to_tensor(x)
        out = None
        if self.l1:
            out = ops.reduce_sum(ops.abs(x)) * self.l1
        if self.l2:
            term = ops.reduce_sum(ops.square(x)) * self.l2
            out = term if out is None else out + term
        return out if out is not None else ops.reduce_sum(x) * 0.0


class L1(L1L2):
    def __init__(self, l1=0.01):
        super().__init__(l1=l1)


class L2(L1L2):
    def __init__(self, l2=0.01):
        super().__init__(l2=l2)


l1, l2, l1_l2 = L1, L2, L1L2


def get(identifier):
    if identifier is None or isinstance(identifier, Regularizer) or callable(identifier):
        return identifier
    table = {"l1": L1, "l2": L2, "l1_l2": L1L2}
    if str(identifier).lower() not in table:
        raise UnsupportedError(f"regularizer {identifier!r} is not supported by Dagscope")
    return table[str(identifier).lower()]()


__getattr__ = unsupported_names("tf.keras.regularizers", globals())
