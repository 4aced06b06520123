"""Matrix products: matmul (with out=), mm, bmm, dot, mv, outer, einsum and linear."""
from __future__ import annotations

import math

import numpy as np

from engine.functional._common import _c_type_name, _type_word
from engine.functional._out import needs_grad, refuse_grad, write_into
from engine.functional.elementwise import add
from engine.functional.movement import reshape
from engine.tensor import apply


def matmul(input, other, *, out=None):
    if out is None:
        return apply("matmul", input, other)
    if needs_grad((input, other)):
        raise refuse_grad("matmul")
    return write_into(out, "matmul", apply("matmul", input, other))


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
        rows = math.prod(leading)    # not -1: that fails when a dim is 0
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
    rows = math.prod(leading)
    if input.array.shape[-1] != in_features:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{input.array.shape[-1]} and "
                           f"{in_features}x{out_features})")
    if bias is not None and bias.ndim == 1 and bias.array.shape[0] not in (1, out_features):
        raise RuntimeError(f"The expanded size of the tensor ({out_features}) must match the existing size "
                           f"({bias.array.shape[0]}) at non-singleton dimension 1.  Target sizes: "
                           f"[{rows}, {out_features}].  Tensor sizes: "
                           f"[{bias.array.shape[0]}]")


def dot(input: Tensor, tensor: Tensor) -> Tensor:
    """The inner product of two 1-D tensors of one dtype."""
    if input.dim() != 1 or tensor.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.dim()}D and {tensor.dim()}D tensors")
    if input.dtype != tensor.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {_type_word(input)} "
                           f"and {_type_word(tensor)}")
    if input.numel() != tensor.numel():
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{input.numel()}] and src "
                           f"[{tensor.numel()}] to have the same number of elements, but got "
                           f"{input.numel()} and {tensor.numel()} elements respectively")
    return input.matmul(tensor)


def mv(input: Tensor, vec: Tensor) -> Tensor:
    """A matrix times a vector."""
    if input.dim() != 2 or vec.dim() != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {input.dim()}, {vec.dim()}")
    if input.shape[1] != vec.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({input.shape[0]}), mat ({input.shape[0]}x{input.shape[1]}), "
                           f"vec ({vec.shape[0]})")
    if input.dtype != vec.dtype:
        # PyTorch names the result (allocated with the vector's dtype) first.
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {_type_word(vec)}, "
                           f"{_type_word(input)}, and {_type_word(vec)}")
    return input.matmul(vec)


def outer(input: Tensor, vec2: Tensor) -> Tensor:
    """The outer product of two 1-D tensors (dtypes promote as in `*`)."""
    for name, t in (("self", input), ("vec2", vec2)):
        if t.dim() != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t.dim()}-D")
    return input.reshape(-1, 1) * vec2


ger = outer
