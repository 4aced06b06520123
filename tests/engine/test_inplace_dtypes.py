"""An in-place op keeps its tensor's dtype, as PyTorch's: a result of a lower kind is refused in
PyTorch's words (exp_ of an int64 tensor), one of the same kind is cast (float64 into float32)."""
from __future__ import annotations

import numpy as np
import pytest

import engine
from engine.tensor import Tensor

# (expression, PyTorch 2.13's message); test_the_stored_message_is_real_pytorchs runs each through real
# torch where it is installed
REFUSED = [
    ("engine.tensor([1, 2]).exp_()", "result type Float can't be cast to the desired output type Long"),
    ("engine.tensor([1, 2]).sqrt_()", "result type Float can't be cast to the desired output type Long"),
    ("engine.tensor([1, 2]).sigmoid_()", "result type Float can't be cast to the desired output type Long"),
    ("engine.tensor([1, 2]).div_(2)", "result type Float can't be cast to the desired output type Long"),
    ("engine.tensor([1, 2], dtype='int32').add_(0.5)",
     "result type Float can't be cast to the desired output type Int"),
    ("engine.tensor([1, 2], dtype='int32').reciprocal_()",
     "result type Float can't be cast to the desired output type Int"),
    ("engine.tensor([True, False]).add_(1)", "result type Long can't be cast to the desired output type Bool"),
    ("engine.tensor([1, 2]).clamp_(0.5, 1.5)", "result type Float can't be cast to the desired output type long int"),
    ("engine.tensor([1, 2]).clamp_min_(0.5)", "result type Float can't be cast to the desired output type long int"),
    ("engine.tensor([1, 2]).pow_(0.5)", "result type Float can't be cast to the desired output type Long"),
]


@pytest.mark.parametrize("expression,message", REFUSED)
def test_a_result_of_a_lower_kind_is_refused(expression, message):
    with pytest.raises(RuntimeError) as refused:
        eval(expression, {"engine": engine})
    assert str(refused.value) == message


@pytest.mark.torch
@pytest.mark.parametrize("expression,message", REFUSED)
def test_the_stored_message_is_real_pytorchs(real_torch, expression, message):
    with pytest.raises(RuntimeError) as refused:     # (torch takes its dtype objects, not their names)
        eval(expression.replace("dtype='int32'", "dtype=engine.int32"), {"engine": real_torch})
    assert str(refused.value) == message


def test_what_pytorch_casts_is_cast():
    assert engine.tensor([1, 2]).pow_(2).tolist() == [1, 4]
    assert engine.tensor([1, 2]).masked_fill_(engine.tensor([True, False]), 0.5).tolist() == [0, 2]
    assert engine.tensor([1, 2]).copy_(engine.tensor([1.5, 2.5])).tolist() == [1, 2]
    assert engine.tensor([1, 2]).fill_(2.7).tolist() == [2, 2]


def test_float64_math_into_a_float32_tensor_in_a_graph_stays_float32():
    x = Tensor(np.array([1.0, 2.0], np.float32), requires_grad=True)
    w = Tensor(np.array([1.0, 1.0]), requires_grad=True)           # float64
    y = x * 1
    y.add_(w * 3)
    assert y.array.dtype == np.float32 and y.grad_fn.name == "AddBackward0"
    (y * y).sum().backward()
    assert x.grad.array.tolist() == [8.0, 10.0] and x.grad.array.dtype == np.float32
    assert w.grad.array.tolist() == [24.0, 30.0] and w.grad.array.dtype == np.float64
