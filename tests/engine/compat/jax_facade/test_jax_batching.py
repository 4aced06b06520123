"""jax.vmap's batching rules (engine/compat/jax/batching.py) in float64: every jnp / lax function
of the gradient checks batched along its first and its last axis equals a Python loop over the
examples, is one batched graph (its jaxpr does not grow with the batch), and differentiates to the
per-example gradients (themselves checked against finite differences in test_jax_gradients.py); a
few batched rules against finite differences directly; cond with a batched predicate; jit of vmap
and vmap of jit are one graph."""
from __future__ import annotations

import numpy as np
import pytest

import engine.compat.jax as jax
from engine.compat.jax import batching, lax
from engine.compat.jax import numpy as jnp
from engine.compat.jax.array import set_x64
from tests.engine.compat.jax_facade.test_jax_gradients import UNARY, W, X
from tests.engine.conftest import central_difference


@pytest.fixture(autouse=True)
def x64():
    set_x64(True)
    yield
    set_x64(False)


XS = X[None] + np.random.default_rng(1).uniform(-0.1, 0.1, size=(3, 3, 4))     # 3 examples like X


def _loop(fn, xs):
    return np.stack([np.asarray(fn(jnp.asarray(x))) for x in xs])


@pytest.mark.parametrize("name", sorted(UNARY))
def test_vmap_equals_a_loop_and_is_one_batched_graph(name):
    fn = UNARY[name]
    expected = _loop(fn, XS)
    np.testing.assert_allclose(np.asarray(jax.vmap(fn)(jnp.asarray(XS))), expected, rtol=1e-12, atol=1e-14)
    last = jax.vmap(fn, in_axes=2, out_axes=-1)(jnp.asarray(XS.transpose(1, 2, 0)))
    np.testing.assert_allclose(np.moveaxis(np.asarray(last), -1, 0), expected, rtol=1e-12, atol=1e-14)
    sizes = {len(jax.make_jaxpr(jax.vmap(fn))(jnp.asarray(XS[:k])).eqns) for k in (2, 3)}
    assert len(sizes) == 1, f"{name}: the batched jaxpr grows with the batch (an op without a batching rule)"


@pytest.mark.parametrize("name", sorted(UNARY))
def test_grad_through_vmap_is_the_per_example_gradients(name):
    fn = UNARY[name]

    def one(x):
        out = fn(x)
        return jnp.sum(out * jnp.asarray(np.resize(W, out.shape)))
    batched = jax.grad(lambda xs: jnp.sum(jax.vmap(one)(xs)))(jnp.asarray(XS))
    expected = np.stack([np.asarray(jax.grad(one)(jnp.asarray(x))) for x in XS])
    np.testing.assert_allclose(np.asarray(batched), expected, rtol=1e-12, atol=1e-14)


BATCHED_RULES = {   # a rule each, with the batch axis where it lands (in_axes), against finite differences
    "matvec": (lambda v, m: m @ v, (0, None)),
    "dot": (lambda v, w: jnp.dot(v, w), (0, 1)),
    "vecmat": (lambda v, m: v @ m, (None, 0)),
    "einsum": (lambda v, m: jnp.einsum("i,ij->j", v, m), (1, 0)),
    "reductions": (lambda v, m: jnp.max(m, axis=0) * jnp.mean(v) + jnp.sum(m * m, axis=1).sum(), (0, 2)),
    "movement": (lambda v, m: jnp.concatenate([v.reshape(2, 2).T.ravel(), m[1:, ::2].ravel()]), (0, 1)),
    "index": (lambda v, m: m.at[0].set(v * 2.0) * m + jnp.take(v, jnp.array([3, 0])).sum(), (0, 0)),
    "cond": (lambda v, m: lax.cond(v[0] > 0.9, lambda a: a * 2.0, jnp.sin, m), (0, 0)),
}


@pytest.mark.parametrize("name", sorted(BATCHED_RULES))
def test_batched_rules_against_finite_differences(name):
    fn, in_axes = BATCHED_RULES[name]
    rng = np.random.default_rng(2)
    v = rng.uniform(0.5, 1.5, size=(2, 4))
    m = rng.normal(size=(2, 3, 4) if name in ("matvec", "reductions", "movement", "index", "cond") else (2, 4, 3))
    if name == "dot":
        m = rng.normal(size=(4, 2))
    if name == "vecmat":
        v, m = v[0], rng.normal(size=(2, 4, 3))
    if name == "reductions":
        m = np.moveaxis(m, 0, 2)
    if name == "einsum":
        v = v.T
    if name == "movement":
        m = np.moveaxis(m, 0, 1)
    weights = rng.normal(size=np.asarray(jax.vmap(fn, in_axes=in_axes)(jnp.asarray(v), jnp.asarray(m))).shape)

    def loss(a, b):
        return jnp.sum(jax.vmap(fn, in_axes=in_axes)(a, b) * jnp.asarray(weights))
    for argnum, x in enumerate((v, m)):
        if in_axes[argnum] is None and x.ndim == 0:
            continue
        g = np.asarray(jax.grad(loss, argnums=argnum)(jnp.asarray(v), jnp.asarray(m)))

        def at(a, k=argnum):
            args = [jnp.asarray(v), jnp.asarray(m)]
            args[k] = jnp.asarray(a)
            return float(loss(*args))
        np.testing.assert_allclose(g, central_difference(at, x.copy()), rtol=1e-6, atol=1e-7)


def test_cond_with_a_batched_predicate_picks_per_example():
    xs = jnp.asarray([-2.0, 3.0, -1.0, 0.5])
    got = jax.vmap(lambda x: lax.cond(x > 0, jnp.sqrt, lambda a: -a, x))(xs)
    np.testing.assert_allclose(np.asarray(got), [2.0, np.sqrt(3.0), 1.0, np.sqrt(0.5)])
    # an unbatched predicate takes its branch, batched
    got = jax.vmap(lambda x, p: lax.cond(p, jnp.sqrt, lambda a: -a, x), in_axes=(0, None))(xs * xs, True)
    np.testing.assert_allclose(np.asarray(got), [2.0, 3.0, 1.0, 0.5])


def test_vmap_of_jit_and_jit_of_vmap_are_one_batched_graph():
    f = jax.jit(lambda v, w: jnp.tanh(w @ v + 1.0))
    xs, w = jnp.asarray(XS[:, 0]), jnp.asarray(W)
    for g in (jax.vmap(f, in_axes=(0, None)), jax.jit(jax.vmap(f, in_axes=(0, None)))):
        jaxpr = str(jax.make_jaxpr(g)(xs, w))
        assert jaxpr.count("dot_general") == 1 and jaxpr.count("tanh") == 1, jaxpr
        np.testing.assert_allclose(np.asarray(g(xs, w)), np.tanh(XS[:, 0] @ W.T + 1.0), rtol=1e-12)


def test_every_rule_names_a_registered_op():
    from engine.ops.registry import OPS
    assert set(batching.RULES) <= set(OPS)


_IDX = np.array([2, 0, 1])


@pytest.mark.parametrize("name, fn, x_axis", [
    ("row_of_batched_x", lambda x, i: x[i], 0),
    ("column_of_batched_x", lambda x, i: x[:, i] * x[0, 0], 0),
    ("row_of_shared_x", lambda x, i: x[i], None),
    ("column_of_shared_x", lambda x, i: jnp.sin(x[:, i]), None),
    ("two_indices", lambda x, i: x[i, i + 1], 0),
    ("index_array", lambda x, i: x[:, jnp.stack([i, 2 - i])], 0),
])
def test_vmap_with_batched_indices_equals_a_python_loop(name, fn, x_axis):
    xs = jnp.asarray(XS) if x_axis == 0 else jnp.asarray(X)
    idx = jnp.asarray(_IDX)
    expected = np.stack([np.asarray(fn(xs[b] if x_axis == 0 else xs, idx[b])) for b in range(3)])
    got = jax.vmap(fn, in_axes=(x_axis, 0))(xs, idx)
    np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-15)
    # one gather over the batch, not one per example, and its gradient is the loop's
    text = str(jax.make_jaxpr(jax.vmap(fn, in_axes=(x_axis, 0)))(xs, idx))
    assert text.count("gather") == str(jax.make_jaxpr(fn)(xs[0] if x_axis == 0 else xs, idx[0])).count("gather")
    g = jax.grad(lambda a: jnp.sum(jax.vmap(fn, in_axes=(x_axis, 0))(a, idx) ** 2))(xs)
    g_loop = jax.grad(lambda a: sum(jnp.sum(fn(a[b] if x_axis == 0 else a, idx[b]) ** 2) for b in range(3)))(xs)
    np.testing.assert_allclose(np.asarray(g), np.asarray(g_loop), rtol=1e-14)


def test_vmap_maps_keyword_arguments_over_axis_0_as_jax_does():
    f = lambda x, scale=1.0, shift=0.0: x * scale + shift        # noqa: E731
    xs, scales = jnp.asarray(XS), jnp.asarray([1.0, 2.0, 3.0])
    got = jax.vmap(f, in_axes=(1,))(xs, scale=scales, shift=jnp.asarray(W))
    expected = np.stack([np.asarray(f(XS[:, b], scale=scales[b], shift=W[b])) for b in range(3)])
    np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-15)
