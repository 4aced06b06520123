"""torch.dot, torch.mv and torch.outer (alias torch.ger), composed from ops the engine has, with
PyTorch's values, grad_fn names and argument errors: a 1-D @ 1-D matmul is DotBackward0, a 2-D @ 1-D
matmul MvBackward0, and PyTorch's own outer is `input.reshape(-1, 1) * vec2` (MulBackward0)."""
from __future__ import annotations

from engine.tensor import Tensor


def _type_name(t: Tensor) -> str:
    return t.type().rpartition(".")[2].removesuffix("Tensor")      # torch.FloatTensor -> Float


def dot(input: Tensor, tensor: Tensor) -> Tensor:
    """The inner product of two 1-D tensors of one dtype."""
    if input.dim() != 1 or tensor.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.dim()}D and {tensor.dim()}D tensors")
    if input.dtype != tensor.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {_type_name(input)} "
                           f"and {_type_name(tensor)}")
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
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {_type_name(vec)}, "
                           f"{_type_name(input)}, and {_type_name(vec)}")
    return input.matmul(vec)


def outer(input: Tensor, vec2: Tensor) -> Tensor:
    """The outer product of two 1-D tensors (dtypes promote as in `*`)."""
    for name, t in (("self", input), ("vec2", vec2)):
        if t.dim() != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t.dim()}-D")
    return input.reshape(-1, 1) * vec2


ger = outer
