"""The eager engine's fast paths against the generic paths they shortcut: same results, bit for bit.

- masked vjps (gradients only for the inputs that need one) against the full vjp rule;
- the backward walk's unrolled one- and two-input node application against the vjp rule itself;
- nodes that snapshot input versions as None (all 0) still catch an in-place change.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from engine import autograd, backward
from engine.ops import OPS
from engine.ops.builder import NUMPY
from engine.tensor import Tensor, apply
from tests.engine.op_cases import CASES

MASKED = sorted(name for name, op in OPS.items() if op.vjp_masked is not None)


def _masked_params():
    for name in MASKED:
        cases = [c for c in CASES.get(name, []) if c.diff]
        assert cases, f"op {name!r} has a masked vjp but no differentiable case in op_cases"
        for i, case in enumerate(cases):
            yield pytest.param(name, case, id=f"{name}-{i}")


@pytest.mark.parametrize("name,case", list(_masked_params()))
def test_masked_vjp_equals_the_full_rule(name, case):
    op = OPS[name]
    out = op.run(*case.inputs, **case.attrs)
    g = np.random.default_rng(3).standard_normal(out.shape)
    full = op.vjp(NUMPY, g, *case.inputs, out, **case.attrs)
    n = len(case.inputs)
    for needs in itertools.product((False, True), repeat=n):
        if not any(needs[i] for i in case.diff):
            continue
        masked = op.vjp_masked(NUMPY, needs, g, *case.inputs, out, **case.attrs)
        assert len(masked) == n
        for i in range(n):
            if needs[i] and i in case.diff:
                np.testing.assert_array_equal(masked[i], full[i], err_msg=f"{name} input {i}, needs={needs}")


@pytest.mark.parametrize("op_name,arity,needs", [
    ("mul", 2, (True, True)), ("mul", 2, (True, False)), ("mul", 2, (False, True)),
    ("add", 2, (True, False)), ("sub", 2, (False, True)), ("div", 2, (True, True)),
    ("matmul", 2, (True, False)), ("exp", 1, (True,)), ("tanh", 1, (True,)),
    ("addmm", 3, (True, True, True)), ("addmm", 3, (False, True, False)), ("where", 3, (False, True, True)),
])
def test_backward_walk_equals_the_vjp_rule_run_directly(op_name, arity, needs):
    """Node.apply's unrolled one- and two-input branches, and the n-ary one, give what the op's
    full vjp rule gives on the same arrays (which is what graph autodiff reads)."""
    rng = np.random.default_rng(0)
    arrays = [rng.uniform(0.5, 2.0, (3, 3)) for _ in range(arity)]
    if op_name == "where":
        arrays[0] = rng.random((3, 3)) < 0.5
    leaves = [Tensor(a.copy(), requires_grad=bool(need)) for a, need in zip(arrays, needs)]
    out = apply(op_name, *leaves)
    g = rng.standard_normal(out.array.shape)
    wanted = [i for i, need in enumerate(needs) if need]
    got = backward.run_backward([out], [g], inputs=[leaves[i] for i in wanted])
    full = OPS[op_name].vjp(NUMPY, g, *arrays, out.array)
    for i, grad in zip(wanted, got):
        np.testing.assert_array_equal(grad.array, full[i])


def test_zero_versions_snapshot_still_catches_an_inplace_change():
    x = Tensor(np.ones(3), requires_grad=True)
    a = x * 2
    y = a * a                      # saves a (at version 0: snapshotted as versions=None)
    assert y.grad_fn.versions is None
    with autograd.no_grad():
        a.mul_(3)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


NUMPY_VJPS = sorted(name for name, op in OPS.items() if op.numpy_vjp is not None)


def _classifier_cases():
    """An MLP classifier's ops as its training step runs them (linear's addmm and transpose, relu,
    log_softmax over classes, nll_loss on class indices): float32 and float64, each reduction of
    the loss, with and without an ignored target."""
    rng = np.random.default_rng(5)
    for dtype in (np.float32, np.float64):
        logits = rng.standard_normal((6, 4)).astype(dtype)
        logp = logits - np.log(np.exp(logits).sum(1, keepdims=True))
        yield "log_softmax", [logits], {"dim": 1}
        yield "log_softmax", [logits], {"dim": -1}
        for reduction in ("mean", "sum", "none"):
            for target in (np.array([0, 3, 1, 1, 2, 0]), np.array([0, -100, 1, 3, -100, 2])):
                yield "nll_loss", [logp, target], {"reduction": reduction, "ignore_index": -100}
        yield "nll_loss", [logp, np.array([1, 1, 2, 0, 3, 2])], {"reduction": "mean", "ignore_index": 1}
        yield "relu", [logits], {}
        yield "relu", [np.asarray(0.5, dtype=dtype)], {}           # 0-d: ufuncs give scalars there
        yield "log_softmax", [np.asarray([0.5], dtype=dtype)], {"dim": 0}
        weight = rng.standard_normal((3, 4)).astype(dtype)
        yield "transpose", [weight], {"dim0": 0, "dim1": 1}
        yield "addmm", [rng.standard_normal(3).astype(dtype), logits, weight.T], {}        # nn.Linear's x @ W^T
        yield "addmm", [rng.standard_normal(3).astype(dtype), logits, weight.T.copy()], {}


def _numpy_vjp_params():
    for name in NUMPY_VJPS:
        for i, case in enumerate(CASES[name]):
            for j, arrays in enumerate((case.inputs, [a.astype(np.float32) if a.dtype == np.float64 else a
                                                      for a in case.inputs])):
                yield pytest.param(name, arrays, case.attrs, False, id=f"{name}-case{i}-{j}")
    for k, (name, arrays, attrs) in enumerate(_classifier_cases()):
        yield pytest.param(name, arrays, attrs, True, id=f"{name}-classifier{k}")


@pytest.mark.parametrize("name,arrays,attrs,must_cover", list(_numpy_vjp_params()))
def test_numpy_vjp_equals_the_rule_on_the_numpy_builder(name, arrays, attrs, must_cover):
    op = OPS[name]
    out = op.run(*arrays, **attrs)
    g = np.random.default_rng(11).standard_normal(out.shape).astype(out.dtype)
    rule = op.vjp(NUMPY, g, *arrays, out, **attrs)
    for needs in itertools.product((False, True), repeat=len(arrays)):
        if not any(needs):
            continue
        fast = op.numpy_vjp(needs, g, *arrays, out, **attrs)
        if must_cover:
            assert fast is not None, "this case must take the numpy path"
        if fast is None:
            continue
        assert len(fast) == len(rule)
        for need, got, want in zip(needs, fast, rule):
            if need and want is not None:
                assert type(got) is np.ndarray, "a gradient is an ndarray (ufuncs make 0-d ones scalars)"
                assert got.dtype == want.dtype and got.shape == want.shape
                np.testing.assert_array_equal(got, want)


def test_eager_backward_takes_the_numpy_vjp_and_matches_the_rule():
    """Through Tensor.backward: the loss's gradient equals the rule's, and the numpy path ran."""
    rng = np.random.default_rng(2)
    logits = Tensor(rng.standard_normal((5, 3)).astype(np.float32), requires_grad=True)
    target = Tensor(np.array([0, 2, 1, -100, 2]))
    from engine import functional as F
    calls = []
    op = OPS["nll_loss"]
    original = op.numpy_vjp
    object.__setattr__(op, "numpy_vjp", lambda *a, **k: calls.append(1) or original(*a, **k))
    try:
        F.cross_entropy(logits, target).backward()
    finally:
        object.__setattr__(op, "numpy_vjp", original)
    assert calls == [1]
    x = logits.array
    logp = OPS["log_softmax"].run(x, dim=1)
    loss = OPS["nll_loss"].run(logp, target.array, reduction="mean", ignore_index=-100)
    g_logp = op.vjp(NUMPY, np.ones_like(loss), logp, target.array, loss, reduction="mean", ignore_index=-100)[0]
    want = OPS["log_softmax"].vjp(NUMPY, g_logp, x, logp, dim=1)[0]
    np.testing.assert_array_equal(logits.grad.array, want)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_plain_sgd_step_equals_the_generic_update(dtype):
    """SGD without momentum/weight decay updates in its step loop; the parameters must come out
    exactly as the generic update (`_update`, `p -= lr * grad`) leaves them, step after step."""
    from engine import optim
    rng = np.random.default_rng(4)
    start = rng.standard_normal((5, 7)).astype(dtype)
    p = Tensor(start.copy(), requires_grad=True)
    opt = optim.SGD([p], lr=0.037)
    q = Tensor(start.copy(), requires_grad=True)
    generic = optim.SGD([q], lr=0.037)
    for _ in range(3):
        grad = rng.standard_normal((5, 7)).astype(dtype)
        p.grad, q.grad = Tensor(grad.copy()), Tensor(grad.copy())
        opt.step()
        generic._update(q, q.grad.array, generic.param_groups[0], {})
        np.testing.assert_array_equal(p.array, q.array)
    assert p._version == 3
    assert len(opt.state) == 0, "as PyTorch's SGD without momentum, no per-parameter state"


def test_a_non_leaf_tensor_still_deep_copies():
    """A node is a weakref subclass now; deepcopy copies its fields as it did for the slots object."""
    import copy
    x = Tensor(np.ones(2), requires_grad=True)
    y = x * 2
    z = copy.deepcopy(y)
    assert z.grad_fn is not y.grad_fn and z.grad_fn.name == "MulBackward0"
    assert z.grad_fn.out_ref() is y and len(z.grad_fn.next_functions) == 2
    np.testing.assert_array_equal(z.array, y.array)


def test_relu_of_relu_of_a_0d_tensor():
    """The numpy vjps hand on ndarrays, never numpy scalars (a scalar gradient used to turn into a
    bool array in the next rule: relu(relu(x)) of a 0-d x got gradient 1.0 times nothing)."""
    x = Tensor(np.asarray(0.25, dtype=np.float32), requires_grad=True)
    y = (x * 3.0).relu().relu()
    y.backward(Tensor(np.asarray(2.0, dtype=np.float32)))
    assert x.grad.array.dtype == np.float32 and float(x.grad.array) == 6.0
