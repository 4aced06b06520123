"""`jax.test_util`: check_grads, check_jvp, check_vjp — a transformation's derivatives against central
differences in one random direction, as JAX's own (jax/_src/public_test_util.py, Apache-2.0; the same
steps, tolerances and NumPy RandomState(0) directions, so a check that passes in JAX passes here).
"""
from __future__ import annotations

import functools
import operator

import numpy as np

from engine.compat.jax.array import canonical, x64
from engine.compat.jax.transforms import jvp, vjp
from engine.compat.jax.tree_util import tree_leaves, tree_map

EPS = 1e-4
default_gradient_tolerance = {np.dtype(np.float16): 1e-2, np.dtype(np.float32): 2e-3,
                              np.dtype(np.float64): 1e-5, np.dtype(np.complex64): 1e-3,
                              np.dtype(np.complex128): 1e-5}
_DEFAULT_TOLERANCE = {np.dtype(np.float16): 1e-3, np.dtype(np.float32): 1e-6, np.dtype(np.float64): 1e-15,
                      np.dtype(np.complex64): 1e-6, np.dtype(np.complex128): 1e-15}


def _dtype(x) -> np.dtype:
    if isinstance(x, (bool, int, float, complex)):
        dt = np.asarray(x).dtype
        return dt if x64() else canonical(dt)
    return np.asarray(x).dtype


def _is_python_scalar(x) -> bool:
    return isinstance(x, (bool, int, float, complex))


def _tolerance(dtype, tol) -> float:
    if not isinstance(tol, dict):
        return tol
    dtype = np.dtype(dtype) if x64() else canonical(np.dtype(dtype))
    return tol.get(dtype, _DEFAULT_TOLERANCE.get(dtype, 0.0))


def _assert_close(a, b, atol=None, rtol=None, err_msg=""):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape
    atol = max(_tolerance(a.dtype, atol), _tolerance(b.dtype, atol))
    rtol = max(_tolerance(a.dtype, rtol), _tolerance(b.dtype, rtol))
    kw = {}
    if atol:
        kw["atol"] = atol * a.size
    if rtol:
        kw["rtol"] = rtol * b.size
    with np.errstate(invalid="ignore"):
        np.testing.assert_allclose(a, b, **kw, err_msg=err_msg)


def check_close(xs, ys, atol=None, rtol=None, err_msg=""):
    tree_map(functools.partial(_assert_close, atol=atol, rtol=rtol, err_msg=err_msg), xs, ys)


def _preserve_input_types(f):
    def wrapped(*args):
        result = np.array(f(*(np.asarray(a) if not _is_python_scalar(a) else a for a in args)), dtype=_dtype(args[0]))
        return result.item() if all(_is_python_scalar(a) for a in args) else result
    return wrapped


def _add(xs, ys):
    return tree_map(_preserve_input_types(operator.add), xs, ys)


def _sub(xs, ys):
    return tree_map(_preserve_input_types(operator.sub), xs, ys)


def _safe_sub(xs, ys):
    def one(x, y):
        dtype = _dtype(x)
        x, y = np.asarray(x), np.asarray(y)
        with np.errstate(invalid="ignore"):
            return np.where(np.equal(x, y), np.array(0, dtype), np.subtract(x, y, dtype=dtype))
    return tree_map(one, xs, ys)


def _scalar_mul(xs, a):
    def mul(x):
        dtype = _dtype(x)
        result = np.multiply(np.asarray(x), np.array(a, dtype=dtype), dtype=dtype)
        return result.item() if _is_python_scalar(x) else result
    return tree_map(mul, xs)


def _rand_like(rng, x):
    shape, dtype = np.shape(x), _dtype(x)
    result = np.asarray(rng.randn(*shape), dtype=dtype)
    if np.issubdtype(dtype, np.complexfloating):
        result = result + dtype.type(1.0j) * np.asarray(rng.randn(*shape), dtype=dtype)
    return result.item() if _is_python_scalar(x) else result


def _inner_prod(xs, ys):
    parts = [np.real(np.dot(np.conj(np.asarray(x)).reshape(-1), np.asarray(y).reshape(-1)))
             for x, y in zip(tree_leaves(xs), tree_leaves(ys))]
    return functools.reduce(np.add, parts)


def numerical_jvp(f, primals, tangents, eps=EPS):
    delta = _scalar_mul(tangents, eps)
    f_pos = f(*_add(primals, delta))
    f_neg = f(*_sub(primals, delta))
    return _scalar_mul(_safe_sub(f_pos, f_neg), 0.5 / eps)


def _merge(tol, default):
    if tol is None:
        return default
    if not isinstance(tol, dict):
        return tol
    out = dict(default)
    out.update({np.dtype(k): v for k, v in tol.items()})
    return out


def check_jvp(f, f_jvp, args, atol=None, rtol=None, eps=EPS, err_msg=""):
    atol, rtol = _merge(atol, default_gradient_tolerance), _merge(rtol, default_gradient_tolerance)
    rng = np.random.RandomState(0)
    tangent = tree_map(functools.partial(_rand_like, rng), args)
    v_out, t_out = f_jvp(args, tangent)
    v_expected = f(*args)
    t_expected = numerical_jvp(f, args, tangent, eps=eps)
    check_close(v_out, v_expected, atol=atol, rtol=rtol, err_msg=f"{err_msg} primal" if err_msg else "primal")
    check_close(t_out, t_expected, atol=atol, rtol=rtol, err_msg=f"{err_msg} tangent" if err_msg else "tangent")


def check_vjp(f, f_vjp, args, atol=None, rtol=None, eps=EPS, err_msg=""):
    atol, rtol = _merge(atol, default_gradient_tolerance), _merge(rtol, default_gradient_tolerance)
    rand = functools.partial(_rand_like, np.random.RandomState(0))
    v_out, vjpfun = f_vjp(*args)
    check_close(v_out, f(*args), atol=atol, rtol=rtol, err_msg=f"{err_msg} primal" if err_msg else "primal")
    tangent = tree_map(rand, args)
    tangent_out = numerical_jvp(f, args, tangent, eps=eps)
    cotangent = tree_map(rand, v_out)
    cotangent_out = tree_map(np.conj, vjpfun(tree_map(np.conj, cotangent)))
    check_close(_inner_prod(tangent, cotangent_out), _inner_prod(tangent_out, cotangent), atol=atol, rtol=rtol,
                err_msg=f"{err_msg} cotangent projection" if err_msg else "cotangent projection")


def check_grads(f, args, order, modes=("fwd", "rev"), atol=None, rtol=None, eps=None):
    """JAX's check_grads: forward and reverse derivatives up to `order`, each in one random direction."""
    args = tuple(args)
    eps = eps or EPS
    fwd_check = functools.partial(check_jvp, atol=atol, rtol=rtol, eps=eps)
    rev_check = functools.partial(check_vjp, atol=atol, rtol=rtol, eps=eps)

    def _check(f, args, order, err_msg=""):
        if "fwd" in modes:
            msg = f"JVP of {err_msg}" if err_msg else "JVP"
            fwd_check(f, functools.partial(jvp, f), args, err_msg=msg)
            if order > 1:
                _check(functools.partial(jvp, f), (args, args), order - 1, msg)
        if "rev" in modes:
            msg = f"VJP of {err_msg}" if err_msg else "VJP"
            rev_check(f, functools.partial(vjp, f), args, err_msg=msg)
            if order > 1:
                def f_vjp(*args):
                    out, pullback = vjp(f, *args)
                    return pullback(out)
                _check(f_vjp, args, order - 1, msg)
    _check(f, args, order)
