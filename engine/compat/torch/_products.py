"""torch.addmm: the registry's addmm op (AddmmBackward0) with PyTorch's argument errors. (torch.dot, mv
and outer are engine.functional's, Tensor methods too.)"""
from __future__ import annotations

from engine.errors import UnsupportedError
from engine.tensor import Tensor, apply


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
