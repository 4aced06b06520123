"""engine.hooks: what the eager core publishes (op applied, value read, node made, backward step and
call), and the recorder listening there rather than patching the core."""
import numpy as np
import pytest

import engine
from engine import hooks, record
from engine.autograd_function import Function
from engine.record import Recorder, use_recorder


def test_op_applied_sees_python_and_c_operators():
    seen = []
    x, y = engine.tensor([1.0, 2.0]), engine.tensor([3.0, 4.0])
    with hooks.subscribed(hooks.OP_APPLIED, lambda op, inputs, attrs, out: seen.append((op.name, out))):
        z = x * y            # engine/native's operator when loaded, else the Python one
        s = z.sum()
    assert [name for name, _ in seen] == ["mul", "sum"]
    assert seen[1][1] is s
    assert not hooks.OP_APPLIED


@pytest.mark.parametrize("read, kind", [(bool, "bool"), (lambda t: t.item(), "item"), (float, "item"),
                                        (lambda t: t.tolist(), "tolist"), (lambda t: t.numpy(), "numpy")])
def test_value_read_is_told_before_the_read(read, kind):
    seen = []
    t = engine.tensor([2.0])
    with hooks.subscribed(hooks.VALUE_READ, lambda tensor, what: seen.append((tensor, what))):
        read(t)
    assert seen == [(t, kind)]


def test_node_made_sees_op_nodes_and_custom_function_nodes():
    class Square(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    made = []
    x = engine.tensor([1.0, 2.0], requires_grad=True)
    with hooks.subscribed(hooks.NODE_MADE, made.append):
        s = x.sum()                     # a Python-path op
        q = Square.apply(x)
    assert made == [s.grad_fn, q.grad_fn]


def test_backward_step_and_backward_call():
    steps, calls = [], []

    class Around:
        def __init__(self, root, retain_graph, call):
            calls.append(("made", root, retain_graph, call))

        def __enter__(self):
            calls.append("enter")

        def __exit__(self, *exc):
            calls.append("exit")

    x = engine.tensor([1.0, 2.0], requires_grad=True)
    loss = (x * 3.0).sum()
    with hooks.subscribed(hooks.BACKWARD_STEP, lambda node, grad, in_grads: steps.append(node.name)), \
            hooks.subscribed(hooks.BACKWARD_CALL, Around):
        loss.backward()
    assert calls == [("made", loss, False, ".backward()"), "enter", "exit"]
    assert steps == ["SumBackward0", "MulBackward0", "AccumulateGrad"]
    np.testing.assert_array_equal(x.grad.array, [3.0, 3.0])


def test_subscribed_unsubscribes_on_error():
    with pytest.raises(ValueError), hooks.subscribed(hooks.OP_APPLIED, print):
        raise ValueError
    assert not hooks.OP_APPLIED


def test_the_recorder_listens_while_it_runs_and_not_after():
    x = engine.tensor([1.0, 2.0], requires_grad=True)
    outer, inner = Recorder(), Recorder()
    with use_recorder(outer):
        assert record.note_where in hooks.NODE_MADE and record.backward_call in hooks.BACKWARD_CALL
        with use_recorder(inner):              # nested: the hooks stay subscribed once
            assert hooks.NODE_MADE.count(record.note_where) == 1
            x.sum().backward()
        assert record.current() is outer
    assert not hooks.NODE_MADE and not hooks.BACKWARD_CALL and not hooks.BACKWARD_STEP
    assert inner.backward_calls == 1 and outer.backward_calls == 0
