"""Every differentiable registered op's vjp against central finite differences, in float64.

Each op is checked twice: through the real eager autograd (Tensor graph + run_backward, as
.backward() and autograd.grad use it) and through its vjp rule run directly on the NumpyBuilder.
The parametrization is keyed on OPS: registering an op without a case in op_cases fails here.
A few ops are also checked to second order (create_graph=True) against finite differences of
their first-order gradients, and binary broadcasting is fuzzed with hypothesis.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from engine.backward import run_backward
from engine.ops import OPS
from engine.ops.builder import NUMPY
from engine.tensor import Tensor, apply
from tests.engine.op_cases import CASES

DIFFERENTIABLE = sorted(name for name, op in OPS.items() if op.differentiable)


def _params():
    for name in DIFFERENTIABLE:
        cases = [c for c in CASES.get(name, []) if c.diff]
        if not cases:
            yield pytest.param(name, None, id=f"{name}-missing")
        for i, case in enumerate(cases):
            yield pytest.param(name, case, id=f"{name}-{i}")


def _weights(name, case):
    """A fixed random cotangent: the checked scalar is sum(op(inputs) * W)."""
    out = OPS[name].run(*case.inputs, **case.attrs)
    return np.random.default_rng(7).standard_normal(out.shape), out


def finite_difference(fn, inputs, index, eps):
    x = inputs[index]
    grad = np.zeros_like(x, dtype=np.float64)
    for j in np.ndindex(x.shape):
        plus, minus = [a.copy() for a in inputs], [a.copy() for a in inputs]
        plus[index][j] += eps
        minus[index][j] -= eps
        grad[j] = (fn(plus) - fn(minus)) / (2 * eps)
    return grad


def _objective(name, case, weights):
    return lambda inputs: float(np.sum(OPS[name].run(*inputs, **case.attrs) * weights))


def _leaf(array, differentiable):
    return Tensor(np.array(array, copy=True), requires_grad=differentiable)


@pytest.mark.parametrize("name,case", list(_params()))
def test_vjp_matches_finite_differences(name, case):
    if case is None:
        pytest.fail(f"op {name!r} is registered as differentiable but tests/engine/op_cases.py has no case for it")
    weights, out = _weights(name, case)
    expected = [finite_difference(_objective(name, case, weights), case.inputs, i, case.eps) for i in case.diff]

    # 1. through eager autograd: a graph of Tensors and run_backward
    leaves = [_leaf(a, i in case.diff) for i, a in enumerate(case.inputs)]
    result = apply(name, *leaves, **case.attrs)
    assert result.grad_fn is not None and result.grad_fn.name == OPS[name].grad_fn_name(*leaves, **case.attrs)
    grads = run_backward([result], [weights], inputs=[leaves[i] for i in case.diff])
    for i, g, want in zip(case.diff, grads, expected):
        assert g.array.shape == case.inputs[i].shape
        np.testing.assert_allclose(g.array, want, rtol=case.rtol, atol=case.atol, err_msg=f"eager grad of input {i}")

    # 2. the vjp rule straight on numpy arrays (the NumpyBuilder), broadcast reduced as autograd does
    raw = OPS[name].vjp(NUMPY, weights, *case.inputs, out, **case.attrs)
    assert len(raw) == len(case.inputs)
    for i, want in zip(case.diff, expected):
        g = raw[i]
        if g.shape != case.inputs[i].shape:
            g = NUMPY.sum_to_size(g, shape=case.inputs[i].shape)
        np.testing.assert_allclose(g, want, rtol=case.rtol, atol=case.atol, err_msg=f"numpy vjp of input {i}")


SECOND_ORDER = ["mul", "div", "pow", "pow_scalar", "exp", "log", "sqrt", "tanh", "sigmoid", "erf", "gelu",
                "softplus", "matmul", "addmm", "var", "std", "logsumexp", "softmax", "log_softmax", "conv2d",
                "mse_loss", "binary_cross_entropy_with_logits", "silu", "native_layer_norm", "native_batch_norm",
                "smooth_l1_loss", "huber_loss"]


def _first_order(name, case, weights, arrays, create_graph):
    leaves = [_leaf(a, i in case.diff) for i, a in enumerate(arrays)]
    out = apply(name, *leaves, **case.attrs)
    grads = run_backward([out], [weights], create_graph=create_graph, retain_graph=create_graph,
                         inputs=[leaves[i] for i in case.diff])
    return leaves, grads


@pytest.mark.parametrize("name", SECOND_ORDER)
def test_double_backward_matches_finite_differences(name):
    case = CASES[name][-1] if name == "gelu" else CASES[name][0]
    weights, _ = _weights(name, case)
    rng = np.random.default_rng(11)
    directions = [rng.standard_normal(case.inputs[i].shape) for i in case.diff]

    def h(arrays):   # h = sum_i <grad_i f, v_i>, a scalar function of the inputs
        _, grads = _first_order(name, case, weights, arrays, create_graph=False)
        return float(sum(np.sum(g.array * v) for g, v in zip(grads, directions)))

    leaves, grads = _first_order(name, case, weights, case.inputs, create_graph=True)
    total = None
    for g, v in zip(grads, directions):
        term = (g * Tensor(v)).sum()
        total = term if total is None else total + term
    assert total.grad_fn is not None
    second = run_backward([total], [np.ones(())], inputs=[leaves[i] for i in case.diff], allow_unused=True)
    for i, g2 in zip(case.diff, second):
        want = finite_difference(h, case.inputs, i, 1e-5)
        got = np.zeros_like(want) if g2 is None else g2.array
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5, err_msg=f"second derivative, input {i}")


@pytest.mark.parametrize("name,case", [p for p in _params() if p.values[1] is not None])
def test_backward_is_differentiable_in_the_incoming_gradient(name, case):
    """d/dW <vjp(W), v> = J v: differentiating the backward graph with respect to its incoming
    gradient must give the forward directional derivative. This runs every vjp on Tensors
    (create_graph=True) and checks the vjps of the backward helper ops (scatter-adds, conv and
    pool gradients), also for ops that are linear in their inputs."""
    weights, _ = _weights(name, case)
    rng = np.random.default_rng(5)
    directions = {i: rng.standard_normal(case.inputs[i].shape) for i in case.diff}
    leaves = [_leaf(a, i in case.diff) for i, a in enumerate(case.inputs)]
    cotangent = Tensor(weights.copy(), requires_grad=True)
    grads = run_backward([apply(name, *leaves, **case.attrs)], [cotangent], create_graph=True, retain_graph=True,
                         inputs=[leaves[i] for i in case.diff])
    total = sum(((g * Tensor(directions[i])).sum() for i, g in zip(case.diff, grads)), Tensor(np.zeros(())))
    (got,) = run_backward([total], [np.ones(())], inputs=[cotangent])

    def shifted(sign):
        arrays = [a + sign * case.eps * directions[i] if i in directions else a for i, a in enumerate(case.inputs)]
        return OPS[name].run(*arrays, **case.attrs)
    want = (shifted(1) - shifted(-1)) / (2 * case.eps)
    np.testing.assert_allclose(got.array, want, rtol=case.rtol * 10, atol=case.atol * 10)


shapes = hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["add", "sub", "mul", "div", "maximum", "minimum"]),
       hnp.mutually_broadcastable_shapes(num_shapes=2, base_shape=(), min_dims=0, max_dims=3, max_side=3),
       st.integers(0, 2 ** 16))
def test_binary_broadcasting_gradients(name, shapes_pair, seed):
    rng = np.random.default_rng(seed)
    a_shape, b_shape = shapes_pair.input_shapes
    a = np.asarray(rng.uniform(0.5, 1.5, a_shape) * rng.choice([-1, 1], a_shape))
    b = np.asarray(rng.uniform(0.5, 1.5, b_shape) * rng.choice([-1, 1], b_shape))
    if name in ("maximum", "minimum"):
        b = np.asarray(b + 0.05)   # no ties inside a finite difference
    weights = rng.standard_normal(shapes_pair.result_shape)
    leaves = [_leaf(a, True), _leaf(b, True)]
    got = run_backward([apply(name, *leaves)], [weights], inputs=leaves)
    objective = lambda arrays: float(np.sum(OPS[name].run(*arrays) * weights))  # noqa: E731
    for i, g in enumerate(got):
        assert g.array.shape == (a_shape, b_shape)[i]
        np.testing.assert_allclose(g.array, finite_difference(objective, [a, b], i, 1e-6), rtol=1e-5, atol=1e-6)


def test_max_and_amax_share_ties_as_pytorch_does():
    x = Tensor(np.array([[1.0, 3.0, 3.0], [2.0, 0.0, 2.0]]), requires_grad=True)
    apply("max", x).backward()                         # full reduction: evenly among the two 3s
    np.testing.assert_allclose(x.grad.array, [[0, 0.5, 0.5], [0, 0, 0]])
    x.grad = None
    apply("amax", x, dim=1, keepdim=False).sum().backward()
    np.testing.assert_allclose(x.grad.array, [[0, 0.5, 0.5], [0.5, 0, 0.5]])
    x.grad = None
    apply("max", x, dim=1, keepdim=False).sum().backward()   # with dim: to the index max returns
    np.testing.assert_allclose(x.grad.array, [[0, 1, 0], [1, 0, 0]])


def test_maximum_splits_ties_evenly():
    a = Tensor(np.array([1.0, 2.0]), requires_grad=True)
    b = Tensor(np.array([1.0, 3.0]), requires_grad=True)
    apply("maximum", a, b).sum().backward()
    np.testing.assert_allclose(a.grad.array, [0.5, 0.0])
    np.testing.assert_allclose(b.grad.array, [0.5, 1.0])


def test_embedding_padding_row_gets_no_gradient():
    weight = Tensor(np.arange(10.0).reshape(5, 2), requires_grad=True)
    apply("embedding", Tensor(np.array([1, 0, 1, 3])), weight, padding_idx=1).sum().backward()
    np.testing.assert_allclose(weight.grad.array, [[1, 1], [0, 0], [0, 0], [1, 1], [0, 0]])


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["sum", "mean", "amax", "amin", "var", "std", "logsumexp"]),
       hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3), st.data(), st.booleans(),
       st.integers(0, 2 ** 16))
def test_reduction_gradients_over_random_dims(name, shape, data, keepdim, seed):
    ndim = len(shape)
    dims = data.draw(st.lists(st.integers(-ndim, ndim - 1), min_size=1, max_size=ndim,
                              unique_by=lambda d: d % ndim))
    attrs = {"dim": tuple(dims), "keepdim": keepdim}
    if name in ("var", "std"):
        count = int(np.prod([shape[d] for d in dims]))
        assume(name == "var" or count > 1)      # std has no derivative at zero spread (PyTorch gives nan)
        attrs["correction"] = 0 if count == 1 else 1
    rng = np.random.default_rng(seed)
    x = np.asarray((rng.permutation(int(np.prod(shape))) * 0.37 + rng.uniform(0, 0.1)).reshape(shape))
    out = OPS[name].run(x, **attrs)
    weights = rng.standard_normal(out.shape)
    leaf = _leaf(x, True)
    (got,) = run_backward([apply(name, leaf, **attrs)], [weights], inputs=[leaf])
    objective = lambda arrays: float(np.sum(OPS[name].run(*arrays, **attrs) * weights))  # noqa: E731
    np.testing.assert_allclose(got.array, finite_difference(objective, [x], 0, 1e-6), rtol=1e-5, atol=1e-6)
