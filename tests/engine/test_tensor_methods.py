"""Tensor's methods made from tables (engine/tensor.py) and bound from above the class
(engine/tensor_methods.py): each is what the table says, and a fresh `import engine.tensor` has them all."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from engine import functional as F
from engine import tensor_methods
from engine.tensor import Tensor
from engine.tensor_inplace import InPlaceOps

ROOT = Path(__file__).resolve().parents[2]
tensor_module = sys.modules["engine.tensor"]      # (engine.tensor, the attribute, is torch.tensor's twin)


def test_the_functional_methods_are_the_functions():
    for name in tensor_methods.SAME_AS_FUNCTIONAL:
        assert getattr(Tensor, name) is getattr(F, name), name
    for name, method in tensor_methods.WRITTEN_OUT.items():
        assert getattr(Tensor, name) is method, name


def test_the_in_place_methods_are_bound():
    for name, member in vars(InPlaceOps).items():
        if not name.startswith("__"):
            assert Tensor.__dict__[name] is member, name


def test_the_one_op_methods_apply_their_op():
    x = Tensor(np.array([-1.5, 0.0, 2.0], np.float32))
    y = Tensor(np.array([2.0, 1.0, -3.0], np.float32))
    for method, op in tensor_module._UNARY_OP_METHODS.items():
        if op in ("bitwise_not",):
            continue
        got = getattr(x, method)()
        assert np.array_equal(got.array, tensor_module.apply(op, x).array, equal_nan=True), method
    for method, op in tensor_module._BINARY_OP_METHODS.items():
        if op.startswith("bitwise"):
            continue
        assert np.array_equal(getattr(x, method)(y).array, tensor_module.apply(op, x, y).array, equal_nan=True), method
    for method, op in tensor_module._REFLECTED_OP_METHODS.items():
        if op.startswith("bitwise"):
            continue
        assert np.array_equal(getattr(x, method)(y).array, tensor_module.apply(op, y, x).array, equal_nan=True), method
    b = Tensor(np.array([True, False]))
    assert (~b).array.tolist() == [False, True] and (b & Tensor(np.array([True, True]))).array.tolist() == [True, False]
    assert Tensor.exp.__qualname__ == "Tensor.exp" and Tensor.__radd__.__qualname__ == "Tensor.__radd__"


def test_the_dtype_methods_convert():
    x = Tensor(np.array([1.5, -2.0], np.float32))
    for method, dtype in tensor_module._DTYPE_METHODS.items():
        assert getattr(x, method)().array.dtype == np.dtype(dtype), method
    assert x.float() is x                    # already float32: itself, as PyTorch


@pytest.mark.torch
def test_pytorchs_float_of_a_float32_tensor_is_itself(real_torch):
    x = real_torch.tensor([1.5, -2.0])
    assert x.float() is x and x.double() is not x


def test_a_fresh_import_of_engine_tensor_has_every_method():
    """`import engine.tensor` runs engine/__init__ first, which imports tensor_methods: no Tensor
    ever lacks the methods bound from above it."""
    code = ("from engine.tensor import Tensor\n"
            "import numpy as np\n"
            "x = Tensor(np.ones(3, np.float32), requires_grad=True)\n"
            "y = (x.sum() * 2 + x[0]).clamp(0, 9)\n"
            "y.backward()\n"
            "z = x.detach().clone().add_(1).uniform_()\n"
            "print(x.grad.tolist(), z.shape, x.new_tensor([1]).dtype)\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout == "[3.0, 2.0, 2.0] torch.Size([3]) torch.float32\n"
