"""Python operators of TF values: `a + b` is tf.add (named "add" in a graph, as TF names operator
nodes), `a[1:]` is a strided slice, with TF's dtype rules from ops.py.

The tensor classes (eager.py, graph.py) sit below the ops, which make them; so, as TensorFlow's
math_ops does with `Tensor._override_operator`, this module installs the operators on them once the
ops exist (the package's __init__ imports it before any program runs). tf.Variable, defined above
this module, simply inherits `TensorOperators`.
"""
from __future__ import annotations

from engine.compat.tensorflow import array_ops, ops
from engine.compat.tensorflow.eager import EagerTensor
from engine.compat.tensorflow.graph import GraphTensor


class TensorOperators:
    """Mix in before any base class that has operators of its own (the engine Tensor's are PyTorch's)."""
    __slots__ = ()

    def __add__(self, other): return ops.add(self, other, name="add")
    def __radd__(self, other): return ops.add(other, self, name="add")
    def __sub__(self, other): return ops.subtract(self, other, name="sub")
    def __rsub__(self, other): return ops.subtract(other, self, name="sub")
    def __mul__(self, other): return ops.multiply(self, other, name="mul")
    def __rmul__(self, other): return ops.multiply(other, self, name="mul")
    def __truediv__(self, other): return ops.truediv(self, other)
    def __rtruediv__(self, other): return ops.truediv(other, self)
    def __floordiv__(self, other): return ops.floordiv(self, other)
    def __rfloordiv__(self, other): return ops.floordiv(other, self)
    def __mod__(self, other): return ops.floormod(self, other)
    def __rmod__(self, other): return ops.floormod(other, self)
    def __pow__(self, other): return ops.pow(self, other)
    def __rpow__(self, other): return ops.pow(other, self)
    def __matmul__(self, other): return ops.matmul(self, other)
    def __rmatmul__(self, other): return ops.matmul(other, self)
    def __neg__(self): return ops.negative(self)
    def __abs__(self): return ops.abs(self)
    def __gt__(self, other): return ops.greater(self, other)
    def __ge__(self, other): return ops.greater_equal(self, other)
    def __lt__(self, other): return ops.less(self, other)
    def __le__(self, other): return ops.less_equal(self, other)


class BitwiseOperators:
    """`&`, `|`, `^`, `~` of TF tensors (Variables have none)."""
    __slots__ = ()

    def __and__(self, other): return ops.bitwise_and(self, other)
    def __rand__(self, other): return ops.bitwise_and(other, self)
    def __or__(self, other): return ops.bitwise_or(self, other)
    def __ror__(self, other): return ops.bitwise_or(other, self)
    def __xor__(self, other): return ops.bitwise_xor(self, other)
    def __invert__(self): return ops.invert(self)


class IndexOperators:
    """`t[key]`: basic slicing (array_ops.getitem)."""
    __slots__ = ()

    def __getitem__(self, key): return array_ops.getitem(self, key)


class EagerOnlyOperators:
    """What only eager tensors have: iteration, elementwise `==`, and TF's immutability."""
    __slots__ = ()

    def __iter__(self):
        if self.array.ndim == 0:
            raise TypeError("Cannot iterate over a scalar tensor.")
        return (array_ops.gather_first(self, i) for i in range(self.array.shape[0]))

    # TF tensors are immutable: `x += 1` makes a new tensor (the engine Tensor's would write in place)
    def __iadd__(self, other): return ops.add(self, other)
    def __isub__(self, other): return ops.subtract(self, other)
    def __imul__(self, other): return ops.multiply(self, other)
    def __itruediv__(self, other): return ops.truediv(self, other)

    def __eq__(self, other): return ops.equal(self, other)
    def __ne__(self, other): return ops.not_equal(self, other)


def _install(cls: type, *mixins: type) -> None:
    for mixin in mixins:
        for name, method in vars(mixin).items():
            if callable(method):
                setattr(cls, name, method)


_install(EagerTensor, TensorOperators, BitwiseOperators, IndexOperators, EagerOnlyOperators)
_install(GraphTensor, TensorOperators, BitwiseOperators, IndexOperators)
