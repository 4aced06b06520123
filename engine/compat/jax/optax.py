"""`import optax`: the optimizers JAX courses train with (sgd with or without momentum, adam), as
optax 0.2.8 writes them — gradient transformations over pytrees, chained, with the same state
types (EmptyState, TraceState, ScaleByAdamState) and the same arithmetic in the same order, so a
seeded JAX training loop prints optax's numbers. Everything is jnp operations: under jax.jit an
update is part of the traced graph, under jax.grad it is differentiable.
"""
from __future__ import annotations

from typing import Any, Callable, NamedTuple

from engine.compat.jax import numpy as jnp
from engine.compat.jax._surface import unsupported_names
from engine.compat.jax.tree_util import tree_map


class GradientTransformation(NamedTuple):
    """A pair of pure functions: init(params) -> state, update(updates, state, params) -> (updates, state)."""
    init: Callable
    update: Callable


class GradientTransformationExtraArgs(GradientTransformation):
    """What optax's optimizers return (their update takes extra keyword arguments, and ignores them)."""


class EmptyState(NamedTuple):
    """The state of a transformation that keeps none."""


class TraceState(NamedTuple):
    trace: Any


class ScaleByAdamState(NamedTuple):
    count: Any
    mu: Any
    nu: Any


def identity() -> GradientTransformationExtraArgs:
    return GradientTransformationExtraArgs(lambda params: EmptyState(),
                                           lambda updates, state, params=None, **extra: (updates, state))


def scale(step_size: float) -> GradientTransformationExtraArgs:
    def update(updates, state, params=None, **extra):
        return tree_map(lambda g: step_size * g, updates), state
    return GradientTransformationExtraArgs(lambda params: EmptyState(), update)


def scale_by_learning_rate(learning_rate, *, flip_sign: bool = True) -> GradientTransformationExtraArgs:
    if callable(learning_rate):
        raise NotImplementedError("optax schedules (a callable learning rate) are not supported by Dagscope yet; "
                                  "give the learning rate as a number")
    return scale(-1 * learning_rate if flip_sign else learning_rate)


def trace(decay: float, nesterov: bool = False, accumulator_dtype=None) -> GradientTransformationExtraArgs:
    """Momentum: trace = g + decay * trace; the update is the trace (nesterov: g + decay * trace again)."""
    def init(params):
        return TraceState(trace=tree_map(lambda t: jnp.zeros_like(t, dtype=accumulator_dtype), params))

    def update(updates, state, params=None, **extra):
        f = lambda g, t: g + decay * t  # noqa: E731 - optax's own
        new_trace = tree_map(f, updates, state.trace)
        updates = tree_map(f, updates, new_trace) if nesterov else new_trace
        if accumulator_dtype is not None:
            new_trace = tree_map(lambda t: t.astype(accumulator_dtype), new_trace)
        return updates, TraceState(trace=new_trace)
    return GradientTransformationExtraArgs(init, update)


def _bias_correction(moment, decay: float, count):
    correction = 1 - decay ** count
    return tree_map(lambda t: t / correction.astype(t.dtype), moment)


def scale_by_adam(b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8, eps_root: float = 0.0, mu_dtype=None,
                  *, nesterov: bool = False) -> GradientTransformationExtraArgs:
    def init(params):
        mu = tree_map(lambda t: jnp.zeros_like(t, dtype=mu_dtype), params)
        return ScaleByAdamState(count=jnp.zeros([], jnp.int32), mu=mu, nu=tree_map(jnp.zeros_like, params))

    def update(updates, state, params=None, **extra):
        mu = tree_map(lambda g, t: (1 - b1) * (g ** 1) + b1 * t, updates, state.mu)
        nu = tree_map(lambda g, t: (1 - b2) * (g ** 2) + b2 * t, updates, state.nu)
        count = state.count + jnp.array(1, jnp.int32)
        if nesterov:
            mu_hat = tree_map(lambda m, g: b1 * m + (1 - b1) * g, _bias_correction(mu, b1, count + 1),
                              _bias_correction(updates, b1, count))
        else:
            mu_hat = _bias_correction(mu, b1, count)
        nu_hat = _bias_correction(nu, b2, count)
        updates = tree_map(lambda m, v: m / (jnp.sqrt(v + eps_root) + eps), mu_hat, nu_hat)
        if mu_dtype is not None:
            mu = tree_map(lambda t: t.astype(mu_dtype), mu)
        return updates, ScaleByAdamState(count=count, mu=mu, nu=nu)
    return GradientTransformationExtraArgs(init, update)


def chain(*transforms) -> GradientTransformationExtraArgs:
    def init(params):
        return tuple(t.init(params) for t in transforms)

    def update(updates, state, params=None, **extra):
        if len(state) != len(transforms):
            raise ValueError("The number of updates and states has to be the same in chain! Make sure you have "
                             "called init first!")
        new_state = []
        for t, s in zip(transforms, state):
            updates, s = t.update(updates, s, params, **extra)
            new_state.append(s)
        return updates, tuple(new_state)
    return GradientTransformationExtraArgs(init, update)


def sgd(learning_rate, momentum: float | None = None, nesterov: bool = False,
        accumulator_dtype=None) -> GradientTransformationExtraArgs:
    first = trace(decay=momentum, nesterov=nesterov, accumulator_dtype=accumulator_dtype) \
        if momentum is not None else identity()
    return chain(first, scale_by_learning_rate(learning_rate))


def adam(learning_rate, b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8, eps_root: float = 0.0,
         mu_dtype=None, *, nesterov: bool = False) -> GradientTransformationExtraArgs:
    return chain(scale_by_adam(b1=b1, b2=b2, eps=eps, eps_root=eps_root, mu_dtype=mu_dtype, nesterov=nesterov),
                 scale_by_learning_rate(learning_rate))


def apply_updates(params, updates):
    """params + updates, each leaf kept in its parameter's dtype."""
    return tree_map(lambda p, u: None if p is None else jnp.asarray(p + u).astype(jnp.asarray(p).dtype),
                    params, updates)


OptState = Any
Params = Any
Updates = Any

__all__ = ["GradientTransformation", "GradientTransformationExtraArgs", "EmptyState", "TraceState",
           "ScaleByAdamState", "identity", "scale", "scale_by_learning_rate", "trace", "scale_by_adam", "chain",
           "sgd", "adam", "apply_updates", "OptState", "Params", "Updates"]
__getattr__ = unsupported_names("optax", globals())
