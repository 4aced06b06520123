"""Matrix products: matmul, mm, bmm, einsum and linear."""
from __future__ import annotations

import numpy as np

from engine.functional._common import _c_type_name, _type_word
from engine.functional.elementwise import add
from engine.functional.movement import reshape
from engine.tensor import apply


def matmul(input, other):
    return apply("matmul", input, other)


def mm(input, mat2):
    if input.ndim != 2 or mat2.ndim != 2:
        raise RuntimeError("self must be a matrix")
    return apply("matmul", input, mat2)


def bmm(input, mat2):
    if input.ndim != 3 or mat2.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    return apply("matmul", input, mat2, fn="bmm")


def einsum(equation: str, *operands):
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    return apply("einsum", *operands, equation=equation)


def linear(input, weight, bias=None):
    """x @ W^T + b as PyTorch 2.13 computes it, so the graph has the same nodes: addmm for 2-D x
    (AddmmBackward0, TBackward0 on W); a contiguous x of 3 or more dims with a 1-D bias is viewed as
    2-D, run through addmm and viewed back (ViewBackward0), a 1-D x too (as one row); otherwise
    matmul, then the bias added."""
    _check_linear_shapes(input, weight, bias)
    # (dims 0 and 1 of a 2-D weight need no range check: apply directly)
    weight_t = apply("transpose", weight, dim0=0, dim1=1, fn="t") if weight.ndim == 2 else weight
    if bias is not None and input.ndim == 2:
        return apply("addmm", bias, input, weight_t)
    if bias is not None and bias.ndim == 1 and weight.ndim == 2 and input.ndim != 2 \
            and input.array.flags.c_contiguous:      # (PyTorch takes this path only for contiguous input)
        leading, features = input.array.shape[:-1], input.array.shape[-1]
        rows = int(np.prod(leading, dtype=np.int64))    # not -1: that fails when a dim is 0
        out = apply("addmm", bias, reshape(input, (rows, features)), weight_t)
        return reshape(out, leading + (out.array.shape[1],))
    out = matmul(input, weight_t)
    return out if bias is None else add(out, bias)


def _check_linear_shapes(input, weight, bias) -> None:
    """PyTorch's errors for a linear layer whose sizes do not fit (numpy's would name gufuncs)."""
    if input.ndim == 0 or weight.ndim == 0:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are {input.ndim}D and "
                           f"{weight.ndim}D")
    if weight.ndim != 2:
        return
    fused = bias is not None and (input.ndim == 2 or (bias.ndim == 1 and input.array.flags.c_contiguous))
    if fused and input.array.dtype != weight.array.dtype:       # PyTorch's addmm (2-D, or viewed as 2-D)
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {_type_word(input)} and "
                           f"{_type_word(weight)}")
    if fused and bias.array.dtype != weight.array.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {_type_word(bias)} and "
                           f"{_type_word(weight)}")
    if input.array.dtype != weight.array.dtype:                 # PyTorch's matmul
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_c_type_name(input)} != "
                           f"{_c_type_name(weight)}")
    out_features, in_features = weight.array.shape
    leading = input.array.shape[:-1]
    rows = int(np.prod(leading, dtype=np.int64))
    if input.array.shape[-1] != in_features:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{input.array.shape[-1]} and "
                           f"{in_features}x{out_features})")
    if bias is not None and bias.ndim == 1 and bias.array.shape[0] not in (1, out_features):
        raise RuntimeError(f"The expanded size of the tensor ({out_features}) must match the existing size "
                           f"({bias.array.shape[0]}) at non-singleton dimension 1.  Target sizes: "
                           f"[{rows}, {out_features}].  Tensor sizes: "
                           f"[{bias.array.shape[0]}]")
