"""The JAX facade's derivatives against finite differences in float64 (jax_enable_x64), for every
jnp / jax.nn / lax function it writes on the engine's ops, and its transformations against each
other: vmap against a Python loop, jacfwd against jacrev, hessian against differences of the
gradient, jvp against the Jacobian times the tangent, custom rules against their formulas."""
from __future__ import annotations

import numpy as np
import pytest

import engine.compat.jax as jax
from engine.compat.jax import lax
from engine.compat.jax import numpy as jnp
from engine.compat.jax.array import set_x64
from tests.engine.conftest import central_difference


@pytest.fixture(autouse=True)
def x64():
    set_x64(True)
    yield
    set_x64(False)


rng = np.random.default_rng(0)
X = rng.uniform(0.3, 1.7, size=(3, 4))          # positive, away from kinks and 0
W = rng.normal(size=(3, 4))                     # weights that make every output element count
M = rng.normal(size=(4, 2))

UNARY = {
    "sin": jnp.sin, "cos": jnp.cos, "tan": jnp.tan, "tanh": jnp.tanh, "exp": jnp.exp, "log": jnp.log,
    "sqrt": jnp.sqrt, "log1p": jnp.log1p, "expm1": jnp.expm1, "sinh": jnp.sinh, "cosh": jnp.cosh,
    "abs": lambda x: jnp.abs(x - 1.0), "square": jnp.square, "reciprocal": jnp.reciprocal, "rsqrt": jnp.rsqrt,
    "cbrt": jnp.cbrt, "negative": jnp.negative, "exp2": jnp.exp2, "log2": jnp.log2, "log10": jnp.log10,
    "pow_int": lambda x: x ** 3, "pow_float": lambda x: x ** 2.5, "rpow": lambda x: 2.0 ** x,
    "sigmoid": jax.nn.sigmoid, "relu": lambda x: jax.nn.relu(x - 1.0), "gelu": jax.nn.gelu,
    "gelu_exact": lambda x: jax.nn.gelu(x, approximate=False), "softplus": jax.nn.softplus, "silu": jax.nn.silu,
    "elu": lambda x: jax.nn.elu(x - 1.0), "leaky_relu": lambda x: jax.nn.leaky_relu(x - 1.0),
    "log_sigmoid": jax.nn.log_sigmoid, "erf": lax.erf, "erfc": jax.scipy.special.erfc,
    "logit": lambda x: jax.scipy.special.logit(x / 2.0), "clip": lambda x: jnp.clip(x, 0.6, 1.4),
    "maximum": lambda x: jnp.maximum(x, 1.0), "minimum": lambda x: jnp.minimum(x, 1.0),
    "where": lambda x: jnp.where(x > 1.0, x * x, -x), "logaddexp": lambda x: jnp.logaddexp(x, 2.0 * x),
    "sum": lambda x: jnp.sum(x, axis=0), "mean": lambda x: jnp.mean(x, axis=1, keepdims=True),
    "var": lambda x: jnp.var(x, axis=0), "std": lambda x: jnp.std(x, axis=1, ddof=1), "max": lambda x: jnp.max(x, axis=1),
    "min": lambda x: jnp.min(x, axis=0), "prod": lambda x: jnp.prod(x, axis=1), "prod_all": jnp.prod,
    "cumsum": lambda x: jnp.cumsum(x, axis=1), "cumprod": lambda x: jnp.cumprod(x, axis=0),
    "logsumexp": lambda x: jax.nn.logsumexp(x, axis=1), "softmax": jax.nn.softmax,
    "log_softmax": lambda x: jax.nn.log_softmax(x, axis=0), "standardize": jax.nn.standardize,
    "norm": lambda x: jnp.linalg.norm(x, axis=1), "matmul": lambda x: x @ jnp.asarray(M),
    "dot": lambda x: jnp.dot(jnp.asarray(M).T, x.T), "einsum": lambda x: jnp.einsum("ij,jk->ik", x, jnp.asarray(M)),
    "outer": lambda x: jnp.outer(x[0], x[1]), "tensordot": lambda x: jnp.tensordot(x, x, axes=((1,), (1,))),
    "reshape": lambda x: x.reshape(2, 6) * jnp.arange(12.0).reshape(2, 6), "transpose": lambda x: x.T @ x,
    "concatenate": lambda x: jnp.concatenate([x, x * x], axis=1), "stack": lambda x: jnp.stack([x, jnp.sin(x)], 2),
    "flip": lambda x: jnp.flip(x, 1) * x, "roll": lambda x: jnp.roll(x, 1, axis=1) * x,
    "index": lambda x: x[1:, ::2] * x[0, 1], "take": lambda x: jnp.take(x, jnp.array([0, 2, 2]), axis=1),
    "at_set": lambda x: x.at[0, 1].set(5.0) * x, "at_add": lambda x: x.at[:, 0].add(x[:, 1]),
    "at_mul": lambda x: x.at[1].mul(3.0) * x, "at_max": lambda x: x.at[2].max(1.0),
    "broadcast": lambda x: x + x[0], "tile": lambda x: jnp.tile(x[0], 2), "repeat": lambda x: jnp.repeat(x, 2, axis=0),
    "diagonal": lambda x: jnp.diagonal(x), "trace": lambda x: jnp.trace(x) * x, "pad": lambda x: jnp.pad(x, 1),
    "cond": lambda x: lax.cond(x[0, 0] > 0, lambda a: a * a, lambda a: -a, x),
    "switch": lambda x: lax.switch(1, [jnp.sin, jnp.cos, jnp.tanh], x),
    "fori_loop": lambda x: lax.fori_loop(0, 3, lambda i, v: v * x + i, x),
    "scan": lambda x: lax.scan(lambda c, row: (c * row, c + row), jnp.ones(4), x)[1],
    "jit": lambda x: jax.jit(lambda a: jnp.tanh(a @ a.T))(x),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_grad_equals_central_differences_in_float64(name):
    fn = UNARY[name]

    def loss(x):
        out = fn(x)
        return jnp.sum(out * jnp.asarray(np.resize(W, out.shape)))
    g = np.asarray(jax.grad(loss)(jnp.asarray(X)))
    assert g.dtype == np.float64
    numeric = central_difference(lambda a: float(loss(jnp.asarray(a))), X.copy())
    np.testing.assert_allclose(g, numeric, rtol=1e-6, atol=1e-7)


def test_stop_gradient_blocks_its_path_only():
    # (finite differences see through it: stop_gradient(x) is x's value)
    g = jax.grad(lambda x: jnp.sum(lax.stop_gradient(x) * x * jnp.asarray(W)))(jnp.asarray(X))
    np.testing.assert_allclose(np.asarray(g), X * W, rtol=1e-15)


def test_second_derivatives_by_nesting_grad():
    f = lambda x: jnp.sin(x) * x ** 3          # noqa: E731
    d2 = jax.grad(jax.grad(f))(1.3)
    x = 1.3
    expected = -np.sin(x) * x ** 3 + 6 * np.cos(x) * x ** 2 + 6 * x * np.sin(x)
    assert abs(float(d2) - expected) < 1e-9


def test_hessian_equals_differences_of_the_gradient():
    f = lambda x: jnp.sum(jnp.tanh(x) ** 3 * jnp.arange(1.0, 5.0))   # noqa: E731
    x = X[0]
    h = np.asarray(jax.hessian(f)(jnp.asarray(x)))
    numeric = np.stack([central_difference(lambda a: float(jax.grad(f)(jnp.asarray(a))[i]), x.copy())
                        for i in range(4)])
    np.testing.assert_allclose(h, numeric, rtol=1e-6, atol=1e-7)


def test_jacfwd_equals_jacrev_and_jvp_is_the_jacobian_times_the_tangent():
    f = lambda x: jnp.sin(x) @ jnp.asarray(M) + jnp.sum(x ** 2)     # noqa: E731
    x, t = jnp.asarray(X[0]), jnp.asarray(W[0])
    jf, jr = np.asarray(jax.jacfwd(f)(x)), np.asarray(jax.jacrev(f)(x))
    assert jf.shape == (2, 4)
    np.testing.assert_allclose(jf, jr, rtol=1e-12, atol=1e-12)
    primal, tangent = jax.jvp(f, (x,), (t,))
    np.testing.assert_allclose(np.asarray(tangent), jr @ W[0], rtol=1e-12)
    y, pullback = jax.vjp(f, x)
    np.testing.assert_allclose(np.asarray(pullback(jnp.ones(2))[0]), jr.sum(0), rtol=1e-12)


@pytest.mark.parametrize("in_axes, out_axes", [(0, 0), (1, 0), (0, 1), ((0, None), 0), ((1, 0), 1)])
def test_vmap_equals_a_python_loop(in_axes, out_axes):
    a, b = jnp.asarray(X), jnp.asarray(W)
    f = lambda u, v: jnp.tanh(u) * jnp.sum(v) + u   # noqa: E731
    spec = in_axes if isinstance(in_axes, tuple) else (in_axes, in_axes)
    if spec[1] is None:
        b = jnp.asarray(W[0])
    elif spec[0] != spec[1]:
        b = jnp.asarray(W.T)                            # mapped along its other axis: the same size
    n = a.shape[spec[0]]
    rows = [f(jnp.take(a, i, axis=spec[0]), b if spec[1] is None else jnp.take(b, i, axis=spec[1])) for i in range(n)]
    expected = np.stack([np.asarray(r) for r in rows], axis=out_axes)
    got = jax.vmap(f, in_axes=in_axes, out_axes=out_axes)(a, b)
    np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-14)


def test_nested_vmap_and_vmap_of_grad():
    a = jnp.asarray(X)
    got = jax.vmap(jax.vmap(lambda s: s ** 2 + 1.0))(a)
    np.testing.assert_allclose(np.asarray(got), X ** 2 + 1.0)
    per_example = jax.vmap(jax.grad(lambda row: jnp.sum(jnp.sin(row) * row)))(a)
    np.testing.assert_allclose(np.asarray(per_example), np.cos(X) * X + np.sin(X), rtol=1e-12)


def test_custom_vjp_and_custom_jvp_rules_are_used():
    @jax.custom_vjp
    def f(x):
        return jnp.sin(x)
    f.defvjp(lambda x: (jnp.sin(x), x), lambda x, g: (g * 100.0,))
    assert float(jax.grad(f)(0.5)) == 100.0

    @jax.custom_jvp
    def h(x):
        return x ** 3
    h.defjvp(lambda primals, tangents: (h(primals[0]), 7.0 * tangents[0]))
    assert float(jax.grad(h)(2.0)) == 7.0
    assert float(jax.jvp(h, (2.0,), (1.0,))[1]) == 7.0


def test_while_loop_is_not_reverse_differentiable_as_in_jax():
    with pytest.raises(ValueError, match="Reverse-mode differentiation does not work for lax.while_loop"):
        jax.grad(lambda x: lax.while_loop(lambda v: v < 10.0, lambda v: v * 2.0, x))(1.0)


def test_check_grads_passes_a_true_derivative_and_fails_a_false_one():
    from engine.compat.jax.test_util import check_grads
    f = lambda w, b: jnp.sum(jnp.tanh(jnp.asarray(M).T @ w + b))    # noqa: E731
    check_grads(f, (jnp.asarray(X[0]), 0.5), order=2)

    @jax.custom_vjp
    def wrong(x):
        return jnp.sin(x)
    wrong.defvjp(lambda x: (jnp.sin(x), x), lambda x, g: (g * 2.0 * jnp.cos(x),))
    with pytest.raises(AssertionError, match="cotangent projection"):
        check_grads(wrong, (jnp.asarray(X[0]),), order=1, modes=("rev",))


# ---- forward mode: jvp's own rules (engine/ops/jvp.py), not the transpose of reverse mode ----------

T = rng.normal(size=(3, 4))                     # a tangent direction


@pytest.mark.parametrize("name", sorted(UNARY))
def test_jvp_equals_central_differences_in_float64(name):
    fn = UNARY[name]
    primal, tangent = jax.jvp(fn, (jnp.asarray(X),), (jnp.asarray(T),))
    h = 1e-6
    numeric = (np.asarray(fn(jnp.asarray(X + h * T))) - np.asarray(fn(jnp.asarray(X - h * T)))) / (2 * h)
    assert np.asarray(tangent).dtype == np.float64
    np.testing.assert_allclose(np.asarray(primal), np.asarray(fn(jnp.asarray(X))), rtol=1e-15)
    np.testing.assert_allclose(np.asarray(tangent), numeric, rtol=1e-6, atol=1e-7)


def test_every_differentiable_op_has_a_jvp_rule_or_is_transposed():
    from engine.compat.jax import forward
    from engine.ops.jvp import JVP
    from engine.ops.registry import OPS
    transposed = sorted(n for n, op in OPS.items() if op.differentiable and n not in JVP)
    # the ops left to the transposed vjp: none of them elementwise, a movement or a sum
    assert all(OPS[n].kind not in ("elementwise", "movement") for n in transposed), transposed
    assert "cumprod" in transposed and "conv2d" in transposed and "sin" not in transposed
    # the transposed rule is still J·t (cumprod, here and in the differences above)
    fn = lambda a: jnp.cumprod(a, axis=1) * a                       # noqa: E731
    _, t = jax.jvp(fn, (jnp.asarray(X),), (jnp.asarray(T),))
    h = 1e-6
    numeric = (np.asarray(fn(jnp.asarray(X + h * T))) - np.asarray(fn(jnp.asarray(X - h * T)))) / (2 * h)
    np.testing.assert_allclose(np.asarray(t), numeric, rtol=1e-6, atol=1e-7)
    assert forward.tracing.FORWARD == []


def test_forward_mode_composes_with_itself_and_with_reverse_mode():
    f = lambda v: jnp.sum(jnp.exp(v) * jnp.sin(v) * jnp.arange(1.0, 5.0))     # noqa: E731
    x = jnp.asarray(X[0])
    h_fwd_fwd = np.asarray(jax.jacfwd(jax.jacfwd(f))(x))
    h_rev_fwd = np.asarray(jax.jacrev(jax.jacfwd(f))(x))
    h_fwd_rev = np.asarray(jax.hessian(f)(x))
    np.testing.assert_allclose(h_fwd_fwd, h_fwd_rev, rtol=1e-12)
    np.testing.assert_allclose(h_rev_fwd, h_fwd_rev, rtol=1e-12)
    # no perturbation confusion: the inner jvp's tangent of x + y in y is 1, whatever x is
    fx = lambda x: x * jax.jvp(lambda y: x + y, (x,), (1.0,))[1]        # noqa: E731
    assert float(jax.jvp(fx, (2.0,), (1.0,))[1]) == 1.0
    # Python control flow on the primal values works under jvp, as in JAX
    g = lambda v: v * 2.0 if float(v) > 0 else -v                        # noqa: E731
    assert float(jax.jvp(g, (1.5,), (1.0,))[1]) == 2.0


def test_jvp_of_custom_rules():
    @jax.custom_jvp
    def h(x):
        return x ** 3
    h.defjvp(lambda primals, tangents: (h(primals[0]), 7.0 * tangents[0]))
    assert float(jax.jacfwd(h)(2.0)) == 7.0

    @jax.custom_vjp
    def f(x):
        return jnp.sin(x)
    f.defvjp(lambda x: (jnp.sin(x), x), lambda x, g: (g,))
    with pytest.raises(TypeError, match="can't apply forward-mode autodiff"):
        jax.jvp(f, (1.0,), (1.0,))


# ---- loops and conds staged into a trace: scan nodes, and a traced cond differentiated in the jit ----

def _loss_through_loops(v):
    carry, ys = lax.scan(lambda c, r: (c * jnp.tanh(r) + r, jnp.sum(c * r)), jnp.ones(4), v)
    looped = lax.fori_loop(0, 3, lambda i, c: jnp.sin(c) * v[0] + i, v[1])
    return jnp.sum(carry) + jnp.sum(ys ** 2) + jnp.sum(looped * jnp.asarray(W[2]))


def _loss_through_a_traced_cond(v):
    out = lax.cond(jnp.sum(v) > 5.0, lambda a: jnp.sin(a) * a, lambda a: jnp.cos(a) - a * v[0], v)
    return jnp.sum(out * jnp.asarray(W))


@pytest.mark.parametrize("loss", [_loss_through_loops, _loss_through_a_traced_cond])
@pytest.mark.parametrize("how", ["eager", "jit_of_grad", "grad_of_jit"])
def test_grad_through_staged_loops_and_conds_equals_central_differences(loss, how):
    grad = {"eager": jax.grad(loss), "jit_of_grad": jax.jit(jax.grad(loss)),
            "grad_of_jit": jax.grad(jax.jit(loss))}[how]
    for x in (X, -X):            # the cond takes each branch
        numeric = central_difference(lambda a: float(loss(jnp.asarray(a))), x.copy())
        np.testing.assert_allclose(np.asarray(grad(jnp.asarray(x))), numeric, rtol=1e-6, atol=1e-7)


def test_staged_loops_print_as_jax_primitives_and_differentiate_in_the_jit():
    text = str(jax.make_jaxpr(_loss_through_loops)(jnp.asarray(X)))
    assert text.count("= scan[") == 2 and "num_carry=2" in text and "while[" not in text
    # a traced cond's backward inside the jit is a cond on the same predicate
    grad_text = str(jax.make_jaxpr(jax.grad(_loss_through_a_traced_cond))(jnp.asarray(X)))
    assert grad_text.count("= cond[") == 2
    x = jnp.asarray(X[0])
    h = jax.jit(jax.hessian(lambda v: jnp.sum(lax.cond(v[0] > 1.0, jnp.sin, jnp.cos, v) ** 3)))(x)
    expected = np.diag(np.asarray(jax.grad(lambda a: jnp.sum(3 * jnp.cos(a) ** 2 * -jnp.sin(a)))(x))
                       if X[0, 0] <= 1.0 else np.asarray(jax.grad(lambda a: jnp.sum(3 * jnp.sin(a) ** 2 * jnp.cos(a)))(x)))
    np.testing.assert_allclose(np.asarray(h), expected, rtol=1e-12, atol=1e-14)


def test_while_loop_under_reverse_mode_inside_jit_is_refused_as_in_jax():
    fn = lambda v: jnp.sum(lax.while_loop(lambda c: jnp.sum(c) < 20.0, lambda c: c * 2.0, v))   # noqa: E731
    with pytest.raises(ValueError, match="Reverse-mode differentiation does not work for lax.while_loop"):
        jax.jit(jax.grad(fn))(jnp.asarray(X[0]))
    assert float(jax.jvp(fn, (jnp.asarray(X[0]),), (jnp.ones(4),))[1]) > 0      # forward mode goes through
