"""sort and topk values: x read at indices argsort already chose (so the indices are an input, as
PyTorch's SortBackward0 / TopkBackward0 save them), with gather's gradient under their own names."""
from __future__ import annotations

from engine.ops.index import _gather_forward
from engine.ops.registry import INDEX, OpDef, Spec, register


def _values_vjp(F, g, x, indices, out, dim):
    return F.gather_backward(g, indices, dim=dim, shape=tuple(x.shape)), None


for _name, _grad_fn, _what in (("sort", "SortBackward0", "x sorted along `dim`"),
                               ("topk", "TopkBackward0", "the k largest (or smallest) of x along `dim`")):
    register(OpDef(
        _name, INDEX, _gather_forward, lambda x, indices, dim: Spec(tuple(indices.shape), x.dtype),
        _values_vjp, _grad_fn, f"{_what}: out = x[indices] along `dim` (indices from argsort)",
        "grad_x = zeros with each grad put back where its value came from", attrs=("dim",), saves=(1,)))
