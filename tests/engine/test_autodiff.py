"""Graph autodiff: the backward graph (built from the registry's vjp rules) gives the gradients eager
autograd gives, through broadcasting, matmul, reductions and cond; and finite differences agree."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine  # noqa: F401
from engine.autodiff import backward_graph, joint_graph
from engine.capture.common import run_eager
from engine.ir import Graph, evaluate, run, verify
from engine.tensor import Tensor

RNG = np.random.default_rng(1)


def eager_grads(g: Graph, args, seeds):
    """Gradients from eager autograd: replay the graph on Tensors and call backward."""
    tensors = [Tensor(a.copy()).requires_grad_(True) if a.dtype.kind == "f" else Tensor(a) for a in args]
    outs = run_eager(g, tensors)
    total = None
    for o, s in zip(outs, seeds):
        if o.requires_grad:
            term = (o * Tensor(s)).sum()
            total = term if total is None else total + term
    total.backward()
    return [t.grad.array if t.grad is not None else np.zeros_like(t.array) for t in tensors if t.array.dtype.kind == "f"]


def graph_grads(g: Graph, args, seeds):
    joint = joint_graph(g)
    verify(joint.graph)
    outs = run(joint.graph, list(args) + list(seeds))
    return outs[:joint.num_outputs], outs[joint.num_outputs:]


def check_against_eager(g: Graph, args, rtol=1e-4, atol=1e-5):
    verify(g)
    forward = run(g, args)
    seeds = [RNG.standard_normal(np.shape(o)).astype(o.dtype) for o in forward]
    fwd, grads = graph_grads(g, args, seeds)
    for a, b in zip(forward, fwd):
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)
    want = eager_grads(g, args, seeds)
    assert len(grads) == len(want)
    for got, exp in zip(grads, want):
        assert got.shape == exp.shape
        np.testing.assert_allclose(got, exp, rtol=rtol, atol=atol)
    # the backward graph alone, fed the saved forward values, gives the same
    bwd = backward_graph(g)
    verify(bwd.graph)
    env = evaluate(g, args)
    alone = run(bwd.graph, list(seeds) + [env[s] for s in bwd.saved])
    for got, exp in zip(alone, want):
        np.testing.assert_allclose(got, exp, rtol=rtol, atol=atol)
    return bwd


def test_mlp_gradients_match_eager():
    g = Graph("mlp")
    x = g.placeholder("x", (4, 3))
    w = g.placeholder("w", (3, 5), role="param")
    b = g.placeholder("b", (5,), role="param")
    h = g.call("tanh", g.call("addmm", b, x, w))
    g.output(g.call("mean", g.call("mul", h, h)))
    args = [RNG.standard_normal(s).astype(np.float32) for s in [(4, 3), (3, 5), (5,)]]
    bwd = check_against_eager(g, args)
    assert "grad_0" in str(bwd.graph) and "saved" in str(bwd.graph)


def test_broadcasting_and_reductions_match_eager():
    g = Graph()
    x = g.placeholder("x", (3, 4))
    y = g.placeholder("y", (4,))
    z = g.placeholder("z", (3, 1))
    s = g.call("div", g.call("mul", x, y), g.call("add", g.call("exp", z), 1.0))
    m = g.call("maximum", g.call("sum", s, dim=(1,), keepdim=True), z)
    g.output(g.call("mean", g.call("relu", g.call("sub", s, m)), dim=(0,), keepdim=False),
             g.call("transpose", s, dim0=0, dim1=1))
    args = [RNG.standard_normal(sh).astype(np.float32) for sh in [(3, 4), (4,), (3, 1)]]
    check_against_eager(g, args)


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_gradients_through_cond_take_the_branch_that_ran(sign):
    g = Graph()
    x = g.placeholder("x", (3,))
    w = g.placeholder("w", (3,))
    t, e = g.subgraph("then"), g.subgraph("else")
    a, aw = t.placeholder("x", (3,)), t.placeholder("w", (3,))
    t.output(t.call("mul", t.call("tanh", a), aw))
    b, bw = e.placeholder("x", (3,)), e.placeholder("w", (3,))
    e.output(e.call("mul", b, b))
    (r,) = g.cond(g.call("gt", g.call("sum", x), 0.0), t, e, [x, w])
    g.output(g.call("sum", r))
    args = [np.abs(RNG.standard_normal(3)).astype(np.float32) * sign, RNG.standard_normal(3).astype(np.float32)]
    check_against_eager(g, args)


def test_finite_differences_float64():
    g = Graph()
    x = g.placeholder("x", (2, 3), np.float64)
    w = g.placeholder("w", (3, 2), np.float64)
    g.output(g.call("sum", g.call("tanh", g.call("matmul", g.call("exp", x), w))))
    args = [RNG.standard_normal((2, 3)), RNG.standard_normal((3, 2))]
    _, grads = graph_grads(g, args, [np.ones(())])
    eps = 1e-6
    for i, a in enumerate(args):
        numeric = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            plus = [x.copy() for x in args]
            minus = [x.copy() for x in args]
            plus[i][idx] += eps
            minus[i][idx] -= eps
            numeric[idx] = (run(g, plus)[0] - run(g, minus)[0]) / (2 * eps)
        np.testing.assert_allclose(grads[i], numeric, rtol=1e-5, atol=1e-7)


SHAPES = [(2, 3), (3,), (2, 1), ()]


@st.composite
def differentiable_graphs(draw):
    g = Graph("random")
    values = [g.placeholder(f"x{i}", s) for i, s in enumerate(draw(st.lists(st.sampled_from(SHAPES), min_size=1, max_size=3)))]
    for _ in range(draw(st.integers(1, 10))):
        op = draw(st.sampled_from(["add", "sub", "mul", "tanh", "exp_small", "sum", "mean", "neg", "relu", "transpose"]))
        a = draw(st.sampled_from(values))
        try:
            if op in ("add", "sub", "mul"):
                values.append(g.call(op, a, draw(st.sampled_from(values))))
            elif op == "exp_small":
                values.append(g.call("exp", g.call("tanh", a)))
            elif op in ("sum", "mean"):
                dim = None if a.ndim == 0 or draw(st.booleans()) else (draw(st.integers(0, a.ndim - 1)),)
                values.append(g.call(op, a, dim=dim, keepdim=draw(st.booleans())))
            elif op == "transpose":
                if a.ndim == 2:
                    values.append(g.call("transpose", a, dim0=0, dim1=1))
            else:
                values.append(g.call(op, a))
        except (ValueError, RuntimeError, IndexError):
            continue
    g.output(draw(st.lists(st.sampled_from(values[len(g.inputs):] or values), min_size=1, max_size=2)))
    return g


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(differentiable_graphs())
def test_random_graph_gradients_match_eager(g):
    args = [RNG.standard_normal(v.shape).astype(np.float32) for v in g.inputs]
    if not any(n.kind == "call" for n in g.nodes):
        return
    check_against_eager(g, args)


def loop_graph():
    """y, w, i = x, w, 0; while sum(y) < 20 and i < 5: y = tanh(y) * w + y; i += 1; return sum(y * y)"""
    g = Graph("loop")
    x = g.placeholder("x", (3,))
    w = g.placeholder("w", (3,))
    c = g.subgraph("cond")
    cy, _, ci = c.placeholder("y", (3,)), c.placeholder("w", (3,)), c.placeholder("i", (), np.int64)
    c.output(c.call("mul", c.call("lt", c.call("sum", cy), 20.0), c.call("lt", ci, 5)))
    b = g.subgraph("body")
    by, bw, bi = b.placeholder("y", (3,)), b.placeholder("w", (3,)), b.placeholder("i", (), np.int64)
    b.output(b.call("add", b.call("mul", b.call("tanh", by), bw), by), bw, b.call("add", bi, 1))
    y, _, _ = g.while_loop(c, b, [x, w, g.constant(np.int64(0))])
    g.output(g.call("sum", g.call("mul", y, y)))
    return g


@pytest.mark.parametrize("start", [[0.5, 1.0, 1.5], [-3.0, 0.2, 0.1], [30.0, 1.0, 1.0]])
def test_gradients_through_while_loop_match_eager(start):
    args = [np.array(start, np.float32), np.array([1.0, 2.0, 0.5], np.float32)]
    bwd = check_against_eager(loop_graph(), args)          # the last start runs zero iterations
    assert "while_loop" in str(bwd.graph)


@pytest.mark.parametrize("momentum", [0.0, 0.9])
def test_training_step_graph_matches_eager_sgd(momentum):
    from engine import nn, optim
    from engine.autodiff import training_step_graph
    g = Graph("mlp_loss")
    x = g.placeholder("x", (4, 3))
    y = g.placeholder("y", (4, 2))
    w = g.placeholder("fc.weight", (3, 2), role="param")
    b = g.placeholder("fc.bias", (2,), role="param")
    d = g.call("sub", g.call("addmm", b, x, w), y)
    g.output(g.call("mean", g.call("mul", d, d)))
    step = training_step_graph(g, [w.id, b.id], lr=0.1, momentum=momentum)
    verify(step)
    xs, ys = RNG.standard_normal((4, 3)).astype(np.float32), RNG.standard_normal((4, 2)).astype(np.float32)
    W, B = RNG.standard_normal((3, 2)).astype(np.float32), RNG.standard_normal(2).astype(np.float32)
    wt, bt = nn.Parameter(Tensor(W.copy())), nn.Parameter(Tensor(B.copy()))
    opt = optim.SGD([wt, bt], lr=0.1, momentum=momentum)
    bufs = [np.zeros_like(W), np.zeros_like(B)] if momentum else []
    params = [W, B]
    for _ in range(3):
        outs = run(step, [xs, ys] + params + bufs)
        loss, params, bufs = outs[0], outs[1:3], outs[3:]
        opt.zero_grad()
        eager_loss = ((Tensor(xs) @ wt + bt - Tensor(ys)) * (Tensor(xs) @ wt + bt - Tensor(ys))).mean()
        eager_loss.backward()
        opt.step()
        np.testing.assert_allclose(loss, eager_loss.array, rtol=1e-5)
    np.testing.assert_allclose(params[0], wt.array, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(params[1], bt.array, rtol=1e-5, atol=1e-6)


def test_each_backward_node_remembers_the_forward_node_whose_vjp_made_it():
    g = Graph()
    x = g.placeholder("x", (3,))
    w = g.placeholder("w", (3,))
    k = g.placeholder("k", (3,))                        # reaches nothing: its gradient is a zero
    h = g.call("tanh", g.call("mul", x, w))
    cond, body = g.subgraph("cond"), g.subgraph("body")
    s = cond.placeholder("s", (3,))
    cond.output(cond.call("lt", cond.call("sum", s), 10.0))
    s = body.placeholder("s", (3,))
    body.output(body.call("mul", s, 2.0))
    (looped,) = g.while_loop(cond, body, [g.call("add", h, 1.0)])
    g.output(g.call("sum", g.call("mul", looped, looped)))
    bwd = backward_graph(g)
    forward = {n.id: n for n in g.nodes}
    made = {}
    for n in bwd.graph.nodes:
        fid = bwd.forward_of.get(n.id)
        if n.kind in ("placeholder", "output"):
            assert fid is None                          # seeds and saved values are no vjp's nodes
        elif fid is not None:
            made.setdefault(forward[fid].op or forward[fid].kind, []).append(n.op or n.kind)
    assert set(made) == {"sum", "mul", "while_loop", "tanh"}     # add(h, 1)'s vjp passes the gradient on: no node
    assert made["tanh"] == ["tanh_backward"] and "while_loop" in made["while_loop"]
    # the only unlinked computations: k's zero gradient (no vjp reached it)
    unlinked = [n for n in bwd.graph.nodes if n.kind not in ("placeholder", "output") and n.id not in bwd.forward_of]
    assert [n.op or n.kind for n in unlinked] in (["constant", "expand"], ["expand", "constant"])
    # the joint graph has the same links (its backward part keeps the ids)
    joint = joint_graph(g)
    assert joint.forward_of == bwd.forward_of
