"""torch.dot, torch.mv, torch.outer (alias torch.ger) and torch.addmm, composed from ops the engine
has, with PyTorch's values, grad_fn names and argument errors: a 1-D @ 1-D matmul is DotBackward0, a
2-D @ 1-D matmul MvBackward0, PyTorch's own outer is `input.reshape(-1, 1) * vec2` (MulBackward0), and
the registry's addmm op is AddmmBackward0."""
from __future__ import annotations

from engine.errors import UnsupportedError
from engine.tensor import Tensor, apply


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


def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta=1, alpha=1) -> Tensor:
    """input + mat1 @ mat2, input broadcast to the product's shape."""
    if beta != 1 or alpha != 1:
        raise UnsupportedError("torch.addmm with beta or alpha other than 1 is not supported by Dagscope; "
                               "write beta * input + alpha * (mat1 @ mat2)")
    if mat1.dim() != 2 or mat2.dim() != 2:
        raise RuntimeError(f"{'mat1' if mat1.dim() != 2 else 'mat2'} must be a matrix, got "
                           f"{mat1.dim() if mat1.dim() != 2 else mat2.dim()}-D tensor")
    if mat1.shape[1] != mat2.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({mat1.shape[0]}x{mat1.shape[1]} and "
                           f"{mat2.shape[0]}x{mat2.shape[1]})")
    target = (mat1.shape[0], mat2.shape[1])
    _check_expands(tuple(input.shape), target)
    return apply("addmm", input, mat1, mat2)


def _check_expands(shape: tuple, target: tuple) -> None:
    """PyTorch's error when `input` cannot be expanded to the product's shape."""
    sizes = f"Target sizes: [{', '.join(map(str, target))}].  Tensor sizes: [{', '.join(map(str, shape))}]"
    if len(shape) > len(target):
        raise RuntimeError(f"expand: the number of sizes provided ({len(target)}) must be greater or equal to "
                           f"the number of dimensions in the tensor ({len(shape)})")
    for dim in range(len(target) - len(shape), len(target)):
        size = shape[dim - len(target) + len(shape)]
        if size != 1 and size != target[dim]:
            raise RuntimeError(f"The expanded size of the tensor ({target[dim]}) must match the existing size "
                               f"({size}) at non-singleton dimension {dim}.  {sizes}")
