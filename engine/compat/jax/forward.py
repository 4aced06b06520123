"""Forward mode: `jax.jvp` as JAX's JVP interpreter, one JVP rule per primitive.

`jvp(f, primals, tangents)` runs f on copies of the primals and, as each op is applied to a value
that carries a tangent (hooks.OP_APPLIED: the engine's every op, eager or a jitted graph run op by
op), applies that op's JVP rule (engine/ops/jvp.py, keyed by op name as the vjp rules are) to
compute the output's tangent. So, as in JAX, Python control flow on the primal values works, the
tangent ops are ordinary engine ops (an enclosing make_jaxpr or jit records them: the jvp's jaxpr;
an enclosing jax.grad differentiates them: jacrev of jacfwd), and a jvp inside a jvp (jacfwd of
jacfwd) is a second interpreter whose tangents are kept apart from the first's (no perturbation
confusion: each keeps its own table, keyed by the tensor).

An op with no JVP rule (a convolution, a sort, a loss) has its vjp rule transposed: the vjp of a
cotangent u that requires grad is linear in u, so d⟨vjp(u), t⟩/du is J·t (one backward walk on
that op alone).
"""
from __future__ import annotations

import numpy as np

from engine import autograd
from engine.backward import run_backward
from engine.compat.jax import tracing
from engine.compat.jax.array import as_array
from engine.hooks import OP_APPLIED
from engine.ops.jvp import JVP
from engine.tensor import Tensor, TensorBuilder



class _TangentBuilder(TensorBuilder):
    """The rules' builder: a sum of tangents prints as JAX's `add_any` in an enclosing jaxpr."""

    def add_tangents(self, a, b):
        out = self.add(a, b)
        trace = tracing.active()
        if trace is not None and id(out) in trace.values:
            trace.shown_as[trace.values[id(out)].id] = ("add_any", None)
        return out


_F = _TangentBuilder()


class JVPTrace:
    """One jvp running: the tangent of each value computed from its primals (id -> (value, tangent))."""

    def __init__(self):
        self.tangents: dict = {}
        self.busy = False                    # running a rule: its own ops get no tangent of this level
        self.base = tracing.active()         # a trace begun inside (a jit's stand-ins, a cond's branch) is not ours

    def tangent(self, t):
        found = self.tangents.get(id(t))
        return found[1] if found is not None and found[0] is t else None

    def set(self, t, tangent) -> None:
        self.tangents[id(t)] = (t, tangent)

    def observe(self, op, tensors, attrs, out) -> None:
        if self.busy or tracing.active() is not self.base or not op.differentiable:
            return
        if self.base is not None and self.base.observe not in OP_APPLIED:
            return                            # the trace paused: values computed beside it (a traced cond's)
        ts = [self.tangent(t) if isinstance(t, Tensor) else None for t in tensors]
        if all(t is None for t in ts) or out.array.dtype.kind not in "fc":
            return
        self.busy = True
        try:
            with autograd.enable_grad():
                tangent = tangent_of(op, ts, tensors, out, attrs)
        finally:
            self.busy = False
        if tangent is not None:
            self.set(out, as_array(tangent))

    def __enter__(self):
        tracing.FORWARD.append(self)
        OP_APPLIED.append(self.observe)
        return self

    def __exit__(self, *exc):
        OP_APPLIED.remove(self.observe)
        tracing.FORWARD.remove(self)
        return False

    def suspended(self):
        return _Suspended(self)


class _Suspended:
    def __init__(self, interp: JVPTrace):
        self.interp = interp

    def __enter__(self):
        self.busy, self.interp.busy = self.interp.busy, True

    def __exit__(self, *exc):
        self.interp.busy = self.busy
        return False


def tangent_of(op, tangents: list, tensors, out, attrs: dict):
    rule = JVP.get(op.name)
    if rule is not None:
        return rule(_F, tangents, *tensors, out, **attrs)
    return _transposed(op, tangents, tensors, out, attrs)


def _transposed(op, tangents: list, tensors, out, attrs: dict):
    """J·t for an op without a JVP rule, from its vjp rule."""
    return transpose(lambda u: op.vjp(_F, u, *tensors, out, **attrs), tangents, tensors, out)


def transpose(vjp, tangents: list, inputs, out):
    """J·t from a vjp (u -> the gradient per input): vjp(u) is linear in u, so d⟨vjp(u), t⟩/du = J·t
    (a backward walk over what vjp(u) made alone)."""
    u = Tensor(np.zeros(out.array.shape, out.array.dtype))
    u._requires_grad = True
    with autograd.enable_grad():
        grads = vjp(u)
        total = None
        for g, t, x in zip(grads, tangents, inputs):
            if g is None or t is None or not isinstance(g, Tensor) or not g._requires_grad:
                continue
            if tuple(g.array.shape) != tuple(x.array.shape):
                g = _F.sum_to_size(g, shape=tuple(x.array.shape))
            term = _F.sum(_F.mul(g, t))
            total = term if total is None else _F.add(total, term)
    if total is None:
        return None
    (found,) = run_backward([total], [Tensor(np.ones((), total.array.dtype))], retain_graph=True,
                            create_graph=True, inputs=[u], allow_unused=True)
    return found


def carrying(tensors) -> JVPTrace | None:
    """The innermost running jvp for which one of `tensors` carries a tangent."""
    for interp in reversed(tracing.FORWARD):
        if interp.busy:                      # inside its own rule (a custom_jvp's): its tangents are not in play
            continue
        if any(isinstance(t, Tensor) and interp.tangent(t) is not None for t in tensors):
            return interp
    return None
