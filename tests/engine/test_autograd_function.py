"""Custom autograd.Function: ctx.save_for_backward, saved_tensors, needs_input_grad, apply, and how
the node joins the engine's backward pass (retain_graph, the second-backward error, recording)."""
import re

import numpy as np
import pytest

from engine import creation
from engine.errors import UnsupportedError
from engine.autograd_function import Function

# PyTorch 2.13's printout and words for the Functions below (test_pytorch_names_and_refuses_the_same_functions
# makes them with real torch where it is installed)
SQUARE_REPR = "tensor([1., 4., 9.], grad_fn=<SquareBackward>)"
BAD_WORDS = "function BadBackward returned an incorrect number of gradients (expected 2, got 1)"
WRONG_SHAPE_WORDS = ("Function WrongShapeBackward returned an invalid gradient at index 0 - got [3] but expected "
                     "shape compatible with [2]")


class Square(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 2 * x


class ScaleBy(Function):
    """A non-tensor argument: its gradient slot must be None."""
    @staticmethod
    def forward(ctx, x, k):
        ctx.k = k
        ctx.flags = ctx.needs_input_grad
        return x * k

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.k, None


def test_square_forward_backward_and_name():
    x = creation.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = Square.apply(x)
    assert repr(y) == SQUARE_REPR
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.array, 2 * np.array([1.0, -2.0, 3.0], np.float32))


def test_chain_with_builtin_ops_and_upstream_gradient():
    x = creation.tensor([0.5, 1.5], requires_grad=True)
    z = (Square.apply(x * 3) * 2).sum()            # z = 2 (3x)^2 -> dz/dx = 36 x
    z.backward()
    np.testing.assert_allclose(x.grad.array, 36 * np.array([0.5, 1.5]), rtol=1e-6)


def test_second_backward_needs_retain_graph():
    x = creation.tensor([2.0], requires_grad=True)
    y = Square.apply(x)
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.array.tolist() == [8.0]
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()


def test_non_tensor_argument_and_needs_input_grad():
    x = creation.tensor([1.0, 2.0], requires_grad=True)
    y = ScaleBy.apply(x, 3.0)
    y.sum().backward()
    assert x.grad.array.tolist() == [3.0, 3.0]
    assert y.grad_fn.ctx.flags == (True, False)


def test_no_node_without_grad():
    y = Square.apply(creation.tensor([3.0]))
    assert y.grad_fn is None and not y.requires_grad


def test_wrong_number_of_gradients():
    class Bad(Function):
        @staticmethod
        def forward(ctx, x, y):
            return x + y

        @staticmethod
        def backward(ctx, grad):
            return grad

    a = creation.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=re.escape(BAD_WORDS)):
        Bad.apply(a, a).backward()


def test_several_differentiable_outputs_are_unsupported():
    class Two(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

    with pytest.raises(UnsupportedError):
        Two.apply(creation.tensor([1.0], requires_grad=True))


def test_custom_function_is_recorded_with_its_name(run):
    record = run(
        "import torch\n"
        "class Square(torch.autograd.Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, x):\n"
        "        ctx.save_for_backward(x)\n"
        "        return x ** 2 if False else x * x\n"
        "    @staticmethod\n"
        "    def backward(ctx, grad):\n"
        "        x, = ctx.saved_tensors\n"
        "        return grad * 2 * x\n"
        "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
        "y = Square.apply(x)\n"
        "y.sum().backward()\n"
        "print(x.grad)\n")
    assert record["ok"], record["error"]
    assert record["stdout"] == "tensor([2., 4.])\n"
    graph = record["graphs"][0]
    ops = [n["op"] for n in graph["backward"]["nodes"]]
    assert ops == ["SumBackward0", "SquareBackward", "AccumulateGrad"]
    square = next(n for n in graph["forward"]["nodes"] if n["op"] == "Square")
    assert square["line"] == 12
    assert [s["op"] for s in graph["steps"]] == ops


def test_double_backward_through_a_custom_function():
    from engine.compat.torch import autograd as torch_autograd

    class Cube(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x * x

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 3 * x * x

    x = creation.tensor([2.0, -1.0], requires_grad=True)
    (g,) = torch_autograd.grad(Cube.apply(x).sum(), x, create_graph=True)
    (gg,) = torch_autograd.grad(g.sum(), x)
    np.testing.assert_allclose(g.array, 3 * np.array([2.0, -1.0]) ** 2)
    np.testing.assert_allclose(gg.array, 6 * np.array([2.0, -1.0]))


def test_setup_context_style_and_non_differentiable_outputs():
    class SortedWithIndex(Function):
        @staticmethod
        def forward(x):
            order = np.argsort(x.array)
            return creation.tensor(x.array[order]), creation.tensor(order)

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.order = output[1].array
            ctx.mark_non_differentiable(output[1])

        @staticmethod
        def backward(ctx, grad):
            out = np.zeros_like(grad.array)
            out[ctx.order] = grad.array
            return creation.tensor(out)

    x = creation.tensor([3.0, 1.0, 2.0], requires_grad=True)
    values, order = SortedWithIndex.apply(x)
    assert values.grad_fn.name == "SortedWithIndexBackward" and order.grad_fn is None
    (values * creation.tensor([1.0, 10.0, 100.0])).sum().backward()
    assert x.grad.array.tolist() == [100.0, 1.0, 10.0]


def test_gradient_of_a_broadcast_shape_is_summed_and_a_wrong_shape_is_an_error():
    class Broadcasting(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1.0

        @staticmethod
        def backward(ctx, grad):
            return grad.expand(3, 2)            # shape [3, 2] for an input of shape [2]

    x = creation.tensor([1.0, 2.0], requires_grad=True)
    Broadcasting.apply(x).sum().backward()
    assert x.grad.array.tolist() == [3.0, 3.0]

    class WrongShape(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1.0

        @staticmethod
        def backward(ctx, grad):
            return creation.ones(3)

    with pytest.raises(RuntimeError, match=re.escape(WRONG_SHAPE_WORDS)):
        WrongShape.apply(creation.tensor([1.0, 2.0], requires_grad=True)).sum().backward()


def test_the_node_is_named_after_the_function_and_has_its_own_class():
    x = creation.tensor([1.0, 2.0], requires_grad=True)
    y = Square.apply(x)
    assert type(y.grad_fn).__name__ == y.grad_fn.name() == "SquareBackward"     # as PyTorch's
    assert type(Square.apply(x).grad_fn) is type(y.grad_fn)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.array, [2.0, 4.0])


# ---- the words and names above are real PyTorch's (skipped where torch is absent) ---------------------

@pytest.mark.torch
def test_pytorch_names_and_refuses_the_same_functions(real_torch):
    def function(name, forward, backward):
        return type(name, (real_torch.autograd.Function,),
                    {"forward": staticmethod(forward), "backward": staticmethod(backward)})

    def square_forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    real_square = function("Square", square_forward, lambda ctx, grad: grad * 2 * ctx.saved_tensors[0])
    x = real_torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = real_square.apply(x)
    assert repr(y) == SQUARE_REPR
    assert type(y.grad_fn).__name__ == y.grad_fn.name() == "SquareBackward"
    assert type(real_square.apply(x).grad_fn) is type(y.grad_fn)
    a = real_torch.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError) as refused:
        function("Bad", lambda ctx, x, y: x + y, lambda ctx, grad: grad).apply(a, a).backward()
    assert str(refused.value) == BAD_WORDS
    wrong_shape = function("WrongShape", lambda ctx, x: x * 1.0, lambda ctx, grad: real_torch.ones(3))
    with pytest.raises(RuntimeError) as refused:
        wrong_shape.apply(real_torch.tensor([1.0, 2.0], requires_grad=True)).sum().backward()
    assert str(refused.value).startswith(WRONG_SHAPE_WORDS)
