"""The eager engine's fast paths against the generic paths they shortcut: same results, bit for bit.

- masked vjps (gradients only for the inputs that need one) against the full vjp rule;
- the backward walk's unrolled one- and two-input node application against the vjp rule itself;
- nodes that snapshot input versions as None (all 0) still catch an in-place change.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from engine import autograd
from engine.ops import OPS
from engine.ops.builder import NUMPY
from engine.tensor import Tensor, apply
from op_cases import CASES

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
    got = autograd.run_backward([out], [g], inputs=[leaves[i] for i in wanted])
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
