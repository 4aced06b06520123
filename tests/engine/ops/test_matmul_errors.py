"""A matmul (or addmm) whose sizes or dtypes do not fit raises PyTorch 2.13's RuntimeError, in the words of
the product its matmul attempts: dot, mv, mm, a batch folded into one mm/mv, or bmm after broadcasting the
batch dims.

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
def t(*shape, dtype=torch.float32):
    return torch.ones(shape, dtype=dtype)
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
    # two dtypes: refused (no promotion), by dot before its sizes, by the others after them
    ('t(3) @ t(3, dtype=torch.float64)',
     'dot : expected both vectors to have same dtype, but found Float and Double'),
    ('t(3) @ t(4, dtype=torch.float64)',
     'dot : expected both vectors to have same dtype, but found Float and Double'),
    ('t(2, 3) @ t(3, dtype=torch.float64)',
     'addmv input tensors must have the same dtype, but got Double, Float, and Double'),
    ('t(2, 3, dtype=torch.float64) @ t(3)',
     'addmv input tensors must have the same dtype, but got Float, Double, and Float'),
    ('t(3) @ t(3, 2, dtype=torch.float64)',
     'expected m1 and m2 to have the same dtype, but got: float != double'),
    ('t(2, 2) @ t(2, 2, dtype=torch.float64)',
     'expected m1 and m2 to have the same dtype, but got: float != double'),
    ('t(2, 2, dtype=torch.int64) @ t(2, 2)',
     'expected m1 and m2 to have the same dtype, but got: long int != float'),
    ('t(2, 3) @ t(4, 2, dtype=torch.float64)',
     'mat1 and mat2 shapes cannot be multiplied (2x3 and 4x2)'),
    ('t(2, 3, 4) @ t(4, 4, dtype=torch.float64)',
     'expected m1 and m2 to have the same dtype, but got: float != double'),
    ('t(2, 3, 4) @ t(4, dtype=torch.float64)',
     'addmv input tensors must have the same dtype, but got Double, Float, and Double'),
    ('t(2, 2, 3) @ t(2, 3, 2, dtype=torch.float64)',
     'expected scalar type Float but found Double'),
    ('t(2, 4) @ t(2, 4, 3, dtype=torch.float64)',
     'expected scalar type Float but found Double'),
    ('t(2, 2, 3) @ t(3, 3, 2, dtype=torch.float64)',
     'The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0'),
    ('t(2, 2, 3, dtype=torch.int32) @ t(2, 3, 2)',
     'expected scalar type Int but found Float'),
    ('torch.bmm(t(2, 2, 3), t(2, 3, 2, dtype=torch.float64))',
     'expected scalar type Float but found Double'),
    ('torch.addmm(t(2), t(2, 3), t(3, 2, dtype=torch.float64))',
     'self and mat2 must have the same dtype, but got Float and Double'),
    ('torch.addmm(t(2, dtype=torch.float64), t(2, 3), t(3, 2))',
     'self and mat2 must have the same dtype, but got Double and Float'),
    ('torch.addmm(t(2), t(2, 3, dtype=torch.float64), t(3, 2))',
     'mat1 and mat2 must have the same dtype, but got Double and Float'),
    ('torch.addmm(t(2), t(2, 3), t(4, 2))',
     'mat1 and mat2 shapes cannot be multiplied (2x3 and 4x2)'),
    ('torch.nn.functional.linear(t(2, 3, dtype=torch.float64), t(2, 3), t(2))',
     'mat1 and mat2 must have the same dtype, but got Double and Float'),
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


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("linear", [False, True])
def test_a_wider_gradient_reaching_a_product_is_cast_to_its_dtype(create_graph, linear):
    """y = x @ w in float32 times a float64 vector is float64, so y's gradient arrives as float64; as in
    PyTorch it is cast to y's dtype before the product's backward (which refuses mixed dtypes)."""
    import engine.compat.torch as torch
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    w = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -3.0]], requires_grad=True)
    y = torch.nn.functional.linear(x, w.t(), torch.zeros(3)) if linear else x @ w
    loss = (y * torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)).sum()
    gx, gw = torch.autograd.grad(loss, (x, w), create_graph=create_graph)
    assert gx.dtype == gw.dtype == torch.float32
    np.testing.assert_allclose(gx.detach().numpy(), [[4.5, -7.0], [4.5, -7.0]])
    np.testing.assert_allclose(gw.detach().numpy(), [[4.0, 8.0, 12.0], [6.0, 12.0, 18.0]])
