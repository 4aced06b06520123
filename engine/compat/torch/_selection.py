"""torch.where's one-argument form and torch.nonzero(as_tuple=True): the indices of the nonzero
elements, one int64 tensor per dimension (a 0-d input counts as one element, as in PyTorch)."""
from __future__ import annotations

from engine import functional
from engine.tensor import Tensor

_NOT_GIVEN = object()


def nonzero(input: Tensor, *, as_tuple: bool = False):
    """The indices of the nonzero elements: an (n, ndim) int64 tensor, or one tensor per dimension."""
    return input.nonzero(as_tuple=as_tuple)


def where(condition: Tensor, input=_NOT_GIVEN, other=_NOT_GIVEN):
    """where(condition, input, other) picks elementwise; where(condition) is nonzero(condition, as_tuple=True)."""
    if input is _NOT_GIVEN and other is _NOT_GIVEN:
        return nonzero(condition, as_tuple=True)
    if input is _NOT_GIVEN or other is _NOT_GIVEN:
        raise TypeError("where() takes a condition alone, or a condition, an input and an other")
    return functional.where(condition, input, other)
