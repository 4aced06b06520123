"""Python operators of TF values, shared by eager tensors, graph tensors and Variables: `a + b` is
tf.add (named "add" in a graph, as TF names operator nodes), with TF's dtype rules from `ops`."""
from __future__ import annotations


def ops_module():
    """The TF ops module, imported on first use (it imports the tensor classes that use this)."""
    from engine.compat.tensorflow import ops
    return ops


_ops = ops_module


class TensorOperators:
    """Mix in before any base class that has operators of its own (the engine Tensor's are PyTorch's)."""
    __slots__ = ()

    def __add__(self, other): return _ops().add(self, other, name="add")
    def __radd__(self, other): return _ops().add(other, self, name="add")
    def __sub__(self, other): return _ops().subtract(self, other, name="sub")
    def __rsub__(self, other): return _ops().subtract(other, self, name="sub")
    def __mul__(self, other): return _ops().multiply(self, other, name="mul")
    def __rmul__(self, other): return _ops().multiply(other, self, name="mul")
    def __truediv__(self, other): return _ops().truediv(self, other)
    def __rtruediv__(self, other): return _ops().truediv(other, self)
    def __floordiv__(self, other): return _ops().floordiv(self, other)
    def __rfloordiv__(self, other): return _ops().floordiv(other, self)
    def __mod__(self, other): return _ops().floormod(self, other)
    def __rmod__(self, other): return _ops().floormod(other, self)
    def __pow__(self, other): return _ops().pow(self, other)
    def __rpow__(self, other): return _ops().pow(other, self)
    def __matmul__(self, other): return _ops().matmul(self, other)
    def __rmatmul__(self, other): return _ops().matmul(other, self)
    def __neg__(self): return _ops().negative(self)
    def __abs__(self): return _ops().abs(self)
    def __gt__(self, other): return _ops().greater(self, other)
    def __ge__(self, other): return _ops().greater_equal(self, other)
    def __lt__(self, other): return _ops().less(self, other)
    def __le__(self, other): return _ops().less_equal(self, other)


class BitwiseOperators:
    """`&`, `|`, `^`, `~` of TF tensors (Variables have none)."""
    __slots__ = ()

    def __and__(self, other): return _ops().bitwise_and(self, other)
    def __rand__(self, other): return _ops().bitwise_and(other, self)
    def __or__(self, other): return _ops().bitwise_or(self, other)
    def __ror__(self, other): return _ops().bitwise_or(other, self)
    def __xor__(self, other): return _ops().bitwise_xor(self, other)
    def __invert__(self): return _ops().invert(self)
