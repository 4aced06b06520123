"""engine/ir/evaluator.py: the one graph walk, on numpy arrays (the reference interpreter, codegen's
control flow, a replayed call's trail) and on Tensors (a captured graph called eagerly)."""
import numpy as np
import pytest

import engine
from engine.capture.common import TENSORS, run_eager
from engine.capture.trail import CallTrail, replayed
from engine.ir import Graph, evaluator, run
from engine.ir.interpreter import ARRAYS, evaluate
from engine.tensor import Tensor


def sign_and_halve():
    """cond on the sum's sign, then a while_loop halving until every |y| <= 1."""
    g = Graph("f")
    x = g.placeholder("x", (3,))
    then_g, else_g = g.subgraph("then"), g.subgraph("else")
    a = then_g.placeholder("x", (3,))
    then_g.output(then_g.call("mul", a, 2.0))
    b = else_g.placeholder("x", (3,))
    else_g.output(else_g.call("neg", b))
    (y,) = g.cond(g.call("gt", g.call("sum", x), 0.0), then_g, else_g, [x])
    c, body = g.subgraph("cond"), g.subgraph("body")
    cy = c.placeholder("y", (3,))
    c.output(c.call("gt", c.call("amax", c.call("abs", cy)), 1.0))
    by = body.placeholder("y", (3,))
    body.output(body.call("div", by, 2.0))
    (z,) = g.while_loop(c, body, [y])
    g.output(g.call("sum", g.call("mul", z, x)))
    return g


def expected(x):
    y = x * 2 if x.sum() > 0 else -x
    halvings = 0
    while np.abs(y).max() > 1:
        y, halvings = y / 2, halvings + 1
    return (y * x).sum(), ("then" if x.sum() > 0 else "else"), halvings


@pytest.mark.parametrize("data", [[1.0, 2.0, 3.0], [-4.0, 1.0, -2.0]])
def test_arrays_and_tensors_walk_alike_and_hear_the_same_decisions(data):
    g, x = sign_and_halve(), np.array(data, np.float32)
    total, taken, halvings = expected(x)
    heard = []
    env = evaluate(g, [x], decided=lambda node, **what: heard.append((node.kind, what)))
    np.testing.assert_allclose(env[g.outputs[0].id], total, rtol=1e-6)
    assert heard == [("cond", {"taken": taken}), ("while_loop", {"iterations": halvings})]
    trail = CallTrail()
    (out,) = run_eager(g, [Tensor(x)], trail)
    assert isinstance(out, Tensor)
    np.testing.assert_allclose(out.array, total, rtol=1e-6)
    assert [(b["kind"], b.get("taken", b.get("iterations"))) for b in trail.branches] == \
        [("cond", taken), ("while", halvings)]
    assert replayed(g, [x]).branches == trail.branches       # generated kernels' calls, replayed


def test_tensors_carry_autograd_through_the_walk():
    g, x = sign_and_halve(), engine.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (out,) = evaluator.outputs(g, [x], TENSORS)
    out.backward()
    # y = x * 2 / 2**3 (6 is halved three times), so out = sum(x * x / 4) and its gradient x / 2
    np.testing.assert_allclose(x.grad.array, [0.5, 1.0, 1.5], rtol=1e-6)


def test_a_runaway_loop_fails_on_both():
    g = Graph("forever")
    n = g.placeholder("n", (), np.int64)
    c, body = g.subgraph("cond"), g.subgraph("body")
    c.output(c.call("ge", c.placeholder("i", (), np.int64), 0))
    body.output(body.call("add", body.placeholder("i", (), np.int64), 1))
    g.output(g.while_loop(c, body, [n])[0])
    old = evaluator.MAX_LOOP_ITERATIONS
    evaluator.MAX_LOOP_ITERATIONS = 50
    try:
        with pytest.raises(RuntimeError, match="ran more than 50 iterations"):
            run(g, [np.int64(0)])
        with pytest.raises(RuntimeError, match="ran more than 50 iterations"):
            run_eager(g, [Tensor(np.int64(0))])
    finally:
        evaluator.MAX_LOOP_ITERATIONS = old


def test_inputs_are_checked_and_converted():
    g = Graph("f")
    x = g.placeholder("x", (2,), np.float64)
    g.output(g.call("add", x, 1.0))
    with pytest.raises(TypeError, match="takes 1 inputs but 2 were given"):
        evaluator.outputs(g, [np.ones(2), np.ones(2)], ARRAYS)
    (t,) = evaluator.outputs(g, [[1.0, 2.0]], TENSORS)        # a list becomes a Tensor of the input's dtype
    assert t.array.dtype == np.float64 and t.tolist() == [2.0, 3.0]
