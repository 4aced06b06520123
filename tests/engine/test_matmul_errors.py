"""A matmul whose sizes do not fit raises PyTorch 2.13's RuntimeError, in the words of the product its
matmul attempts: dot, mv, mm, a batch folded into one mm/mv, or bmm after broadcasting the batch dims.

The messages were printed by real torch 2.13 and are stored here; where torch is importable they are
also checked against it now.
"""
from __future__ import annotations

import numpy as np
import pytest

from engine.ops import OPS
from engine.ops.registry import Spec
from engine.tensor import Tensor, apply

SETUP = """
def t(*shape):
    return torch.ones(shape)
"""

MESSAGES = [
    ("t(3) @ t(4)", "inconsistent tensor size, expected tensor [3] and src [4] to have the same number of elements, "
                    "but got 3 and 4 elements respectively"),
    ("t(2, 3) @ t(2)", "size mismatch, got input (2), mat (2x3), vec (2)"),
    ("t(3) @ t(4, 2)", "mat1 and mat2 shapes cannot be multiplied (1x3 and 4x2)"),
    ("t(2, 3) @ t(4, 2)", "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x2)"),
    # a contiguous batch against a matrix or vector is folded into one mm / mv
    ("t(2, 3, 4) @ t(3, 4)", "mat1 and mat2 shapes cannot be multiplied (6x4 and 3x4)"),
    ("t(2, 3, 4) @ t(3)", "size mismatch, got input (6), mat (6x4), vec (3)"),
    ("t(5, 2, 4, 3) @ t(4)", "size mismatch, got input (40), mat (40x3), vec (4)"),
    ("t(2, 0, 3) @ t(4, 2)", "mat1 and mat2 shapes cannot be multiplied (0x3 and 4x2)"),
    # ... unless its batch dims do not fold without a copy: then bmm over the broadcast batch
    ("t(3, 2, 4).transpose(0, 1) @ t(3, 4)",
     "Expected size for first two dimensions of batch2 tensor to be: [2, 4] but got: [2, 3]."),
    ("t(3, 2, 4).transpose(0, 1) @ t(3)",
     "Expected size for first two dimensions of batch2 tensor to be: [2, 4] but got: [2, 3]."),
    ("t(1, 2, 3).expand(4, 2, 3) @ t(4, 2)",
     "Expected size for first two dimensions of batch2 tensor to be: [4, 3] but got: [4, 4]."),
    ("t(3) @ t(2, 4, 3)", "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [2, 4]."),
    ("t(2, 3) @ t(2, 4, 3)", "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [2, 4]."),
    ("t(2, 2, 3) @ t(2, 4, 2)", "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [2, 4]."),
    ("t(5, 2, 2, 3) @ t(2, 4, 2)",
     "Expected size for first two dimensions of batch2 tensor to be: [10, 3] but got: [10, 4]."),
    ("t(3) @ t(5, 2, 4, 3)", "Expected size for first two dimensions of batch2 tensor to be: [10, 3] but got: [10, 4]."),
    ("t(2, 4, 3) @ t(5, 2, 4, 3)",
     "Expected size for first two dimensions of batch2 tensor to be: [10, 3] but got: [10, 4]."),
    ("t(2, 2, 3) @ t(3, 3, 2)", "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"),
    ("t(5, 2, 2, 3) @ t(3, 1, 3, 2)",
     "The size of tensor a (5) must match the size of tensor b (3) at non-singleton dimension 0"),
    ("torch.ones(()) @ t(3)", "both arguments to matmul need to be at least 1D, but they are 0D and 1D"),
    ("torch.bmm(t(2, 2, 3), t(2, 4, 2))",
     "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [2, 4]."),
]


def raised(torch_module, expr) -> str | None:
    namespace = {"torch": torch_module}
    exec(SETUP, namespace)
    try:
        eval(expr, namespace)
    except RuntimeError as exc:
        return str(exc)
    return None


@pytest.mark.parametrize("expr,message", MESSAGES)
def test_the_error_is_pytorchs(expr, message):
    import engine.compat.torch as dagscope_torch
    assert raised(dagscope_torch, expr) == message


@pytest.mark.parametrize("a,b,message", [
    ((2, 3, 4), (3, 4), "mat1 and mat2 shapes cannot be multiplied (6x4 and 3x4)"),
    ((3,), (2, 4, 3), "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [2, 4]."),
    ((2, 2, 3), (3, 3, 2), "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0")])
def test_the_shape_rule_raises_the_same_error(a, b, message):
    """Graph capture infers shapes from specs, which count as contiguous."""
    with pytest.raises(RuntimeError) as err:
        OPS["matmul"].infer(Spec(a, np.dtype(np.float32)), Spec(b, np.dtype(np.float32)))
    assert str(err.value) == message


def test_bmm_checks_batch_sizes_without_broadcasting():
    a, b = Tensor(np.ones((2, 2, 3), np.float32)), Tensor(np.ones((3, 3, 2), np.float32))
    with pytest.raises(RuntimeError, match=r"batch2 tensor to be: \[2, 3\] but got: \[3, 3\]\."):
        apply("matmul", a, b, fn="bmm")


@pytest.mark.torch
@pytest.mark.parametrize("expr,message", MESSAGES)
def test_the_stored_message_is_what_pytorch_raises_now(expr, message):
    torch = pytest.importorskip("torch")
    if "dagscope" in getattr(torch, "__version__", ""):
        pytest.skip("torch is Dagscope's own facade here, not the real library")
    assert raised(torch, expr) == message
