"""Sample inputs for every registered op, shared by the gradient checks and the registry tests.

CASES[op] is a list of Case: float64 inputs (integer/bool inputs where the op takes indices or
masks), attrs, and which inputs are differentiable. Shapes cover broadcasting, size-1 dims,
negative dims, keepdim both ways and empty reductions where they mean something. An op without
an entry here fails the suite (tests key on OPS, not on this dict).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class Case:
    inputs: list
    attrs: dict = field(default_factory=dict)
    diff: tuple = ()              # indices of differentiable inputs (gradient-checked)
    eps: float = 1e-6             # finite-difference step
    rtol: float = 1e-6
    atol: float = 1e-7
    label: str = ""

    def __post_init__(self):
        self.inputs = [np.asarray(a) for a in self.inputs]

    def __repr__(self) -> str:
        shapes = ",".join("x".join(map(str, np.shape(a))) or "()" for a in self.inputs)
        return f"{self.label or shapes}{self.attrs}"


R = np.random.default_rng(1234)


class _Iterable:
    """What the iterator ops loop over: `iterate()` gives a cursor with `advance()` and `item(k)`."""

    def __init__(self, elements, started=False):
        self.elements, self.started = [np.asarray(e) for e in elements], started

    def iterate(self):
        return _Cursor(self.elements, self.started)


class _Cursor:
    """Endless (it starts again after the last element), so that every run of a case gives one answer."""

    def __init__(self, elements, started):
        self.elements, self.at = elements, 0 if started else -1

    def __eq__(self, other):
        return isinstance(other, _Cursor) and other.elements is self.elements and other.at == self.at

    def advance(self):
        self.at = (self.at + 1) % len(self.elements)
        return True

    def item(self, k):
        return self.elements[self.at]


def _held(value):
    out = np.empty((), dtype=object)
    out[()] = value
    return out


def rnd(*shape):
    return R.standard_normal(shape)


def spd(n, *batch):
    """A symmetric positive definite matrix (or a batch of them): m mᵀ + n I, well away from singular."""
    m = R.standard_normal(batch + (n, n))
    s = m @ np.swapaxes(m, -1, -2) + n * np.eye(n)
    return (s + np.swapaxes(s, -1, -2)) / 2          # symmetric to the last bit, whatever the BLAS summed


def lower(n, *batch):
    """A lower-triangular matrix with a diagonal well away from 0 (random above it: a solve reads only tril)."""
    m = R.standard_normal(batch + (n, n))
    return m + (2.0 + np.abs(np.diagonal(m, axis1=-2, axis2=-1)))[..., None] * np.eye(n)


def away(*shape, lo=0.3):
    """Random values at least `lo` away from 0 (no kink of relu/abs/sign inside a finite difference)."""
    v = R.uniform(lo, 1.5, shape)
    return v * R.choice([-1.0, 1.0], shape)


def pos(*shape, lo=0.5, hi=2.0):
    return R.uniform(lo, hi, shape)


def ints(high, *shape):
    return R.integers(0, high, shape).astype(np.int64)


def mask(*shape):
    return R.random(shape) < 0.5


def binary_cases(b_maker=rnd):
    return [Case([rnd(3, 1, 4), b_maker(2, 4)], diff=(0, 1), label="broadcast"),
            Case([rnd(5), b_maker()], diff=(0, 1), label="tensor-scalar"),
            Case([rnd(1, 3), b_maker(4, 1)], diff=(0, 1), label="outer")]


def _spread(*shape):
    """Distinct values (no ties) for max/min style reductions."""
    n = int(np.prod(shape))
    return (R.permutation(n) * 0.37 + R.uniform(0, 0.1, n)).reshape(shape) - n * 0.15


def _conv_g(x_shape, w_shape, stride, padding):
    oh = (x_shape[2] + 2 * padding[0] - w_shape[2]) // stride[0] + 1
    ow = (x_shape[3] + 2 * padding[1] - w_shape[3]) // stride[1] + 1
    return rnd(x_shape[0], w_shape[0], oh, ow)


def _sorted(x, dim, descending=False, k=None):
    """A sort/topk case: x and the indices argsort gives (the first k of them along dim for topk)."""
    order = np.argsort(-x if descending else x, axis=dim, kind="stable")
    if k is not None:
        order = np.take(order, np.arange(k), axis=dim)
    return Case([x, order.astype(np.int64)], {"dim": dim}, diff=(0,),
                label=f"dim {dim}{', descending' if descending else ''}{f', k={k}' if k else ''}")


def _chosen(index_op, x, dim, values_attrs=None, **attrs):
    """A case of a value-selecting op (cummax, kthvalue, median_dim, mode): x and the indices its
    index op picks (those ops' own cases check the picking)."""
    from engine.ops import OPS
    indices = OPS[index_op].forward(x, dim=dim, **attrs)
    keep = {"keepdim": attrs["keepdim"]} if "keepdim" in attrs else {}
    return Case([x, indices], {"dim": dim, **keep}, diff=(0,), label=f"dim {dim}{attrs}")


_TIES = np.array([[2.0, 1.0, 2.0, 3.0, 1.0, 2.0], [0.5, 0.5, -1.0, 0.5, 4.0, -1.0]])


CASES: dict[str, list[Case]] = {
    "add": binary_cases(), "sub": binary_cases(), "mul": binary_cases(),
    "div": binary_cases(away),
    "maximum": [Case([away(3, 1, 4), away(2, 4)], diff=(0, 1)), Case([away(4), away()], diff=(0, 1))],
    "minimum": [Case([away(3, 1, 4), away(2, 4)], diff=(0, 1)), Case([away(4), away()], diff=(0, 1))],
    "pow": [Case([pos(3, 4), rnd(4)], diff=(0, 1)), Case([pos(), rnd(3)], diff=(0, 1), label="scalar base")],
    "pow_scalar": [Case([away(3, 4)], {"exponent": e}, diff=(0,)) for e in (2, 3, 4, -1, 0, 1)]
    + [Case([pos(3, 4)], {"exponent": e}, diff=(0,)) for e in (0.5, 2.5, -0.5)],
    "neg": [Case([rnd(2, 3)], diff=(0,))],
    "exp": [Case([rnd(2, 3)], diff=(0,))],
    "log": [Case([pos(2, 3)], diff=(0,))],
    "sqrt": [Case([pos(2, 3)], diff=(0,))],
    "abs": [Case([away(2, 3)], diff=(0,))],
    "tanh": [Case([rnd(2, 3)], diff=(0,))],
    "floor": [Case([away(2, 3) * 3], diff=(0,))],
    "ceil": [Case([away(2, 3) * 3], diff=(0,))],
    "round": [Case([away(2, 3) * 3], diff=(0,))],
    "remainder": [Case([away(3, 4) * 3, away(4)], diff=(0, 1))],
    "fmod": [Case([away(3, 4) * 3, away(4)], diff=(0, 1))],
    "floor_divide": binary_cases(away),
    "sin": [Case([rnd(2, 3) * 2], diff=(0,))],
    "cos": [Case([rnd(2, 3) * 2], diff=(0,))],
    "sigmoid": [Case([rnd(2, 3) * 3], diff=(0,))],
    "relu": [Case([away(2, 3)], diff=(0,))],
    "erf": [Case([rnd(3, 4) * 1.5], diff=(0,))],
    "gelu": [Case([rnd(3, 4) * 2], {"approximate": "none"}, diff=(0,)),
             Case([rnd(3, 4) * 2], {"approximate": "tanh"}, diff=(0,))],
    "softplus": [Case([rnd(3, 4) * 2], {"beta": 1.0, "threshold": 20.0}, diff=(0,)),
                 Case([np.array([-2.0, -0.4, 0.3, 3.1, 5.0])], {"beta": 2.0, "threshold": 4.0}, diff=(0,),
                      label="both branches")],
    "clamp": [Case([away(3, 4)], {"min": -0.2, "max": 0.25}, diff=(0,)),
              Case([away(3, 4)], {"min": 0.1, "max": None}, diff=(0,)),
              Case([away(3, 4)], {"min": None, "max": -0.1}, diff=(0,))],
    # (finite values for the finite differences; the replacements, with no gradient, forward only)
    "nan_to_num": [Case([rnd(3, 4)], {"nan": 0.0, "posinf": None, "neginf": None}, diff=(0,)),
                   Case([np.array([1.0, np.nan, np.inf, -np.inf, -0.5])], {"nan": 2.0, "posinf": 9.0, "neginf": None},
                        label="replaced")],
    # (random bounds: some max < min, where the output is max and so is the gradient's owner)
    "clamp_tensor": [Case([rnd(3, 4), rnd(4), rnd(3, 1)], {"bounds_are": "both"}, diff=(0, 1, 2)),
                     Case([rnd(3, 4), rnd(3, 4)], {"bounds_are": "min"}, diff=(0, 1)),
                     Case([rnd(2, 3), rnd()], {"bounds_are": "max", "fn": "clamp_max"}, diff=(0, 1))],
    "tanh_backward": [Case([rnd(3, 4), np.tanh(rnd(3, 4))], diff=(0, 1))],
    "sigmoid_backward": [Case([rnd(3, 4), 1 / (1 + np.exp(-rnd(3, 4)))], diff=(0, 1))],
    # (out's gradient is 0 away from the threshold: only grad's is checked)
    "threshold_backward": [Case([rnd(3, 4), away(3, 4)], {"threshold": 0.0}, diff=(0,)),
                           Case([rnd(2, 3), away(2, 3)], {"threshold": 0.5}, diff=(0,))],
    "masked_fill": [Case([rnd(3, 4), mask(3, 4)], {"value": 0.7}, diff=(0,)),
                    Case([rnd(3, 4), mask(4)], {"value": -1.0}, diff=(0,), label="broadcast mask")],
    "clone": [Case([rnd(2, 3)], diff=(0,))],
    "stop_gradient": [Case([rnd(2, 3)])],
    "print": [Case([rnd(2, 3), rnd()], attrs={"template": ("x =", 0, "and", 1), "sep": " ", "end": "\n",
                                               "summarize": 3, "stream": "stderr"})],
    "debug_print": [Case([rnd(2, 3), rnd()], attrs={"fmt": "x = {} and {y}", "names": (0, "y")})],
    # (cholesky reads (a + aᵀ)/2: a symmetric input is what the factor and PyTorch's gradient are of)
    "cholesky": [Case([spd(3)], diff=(0,)), Case([spd(2, 2)], diff=(0,), label="batch of two")],
    "triangular_solve": [Case([lower(3), rnd(3, 2)], diff=(0, 1)),
                         Case([lower(3), rnd(3, 1)], {"transpose": True}, diff=(0, 1)),
                         Case([lower(2, 2), rnd(2, 2, 3)], diff=(0, 1), label="batch of two")],
    "debug_callback": [Case([rnd(2, 3), rnd()], attrs={"callback": lambda arrays: None})],
    # the iterator ops on a stand-in dataset of two elements (engine/ops/effects.py's protocol)
    "iterator_start": [Case([_held(_Iterable([[1.0, 2.0], [3.0, 4.0]]))])],
    "iterator_next": [Case([_held(_Iterable([[1.0, 2.0]]).iterate())])],
    "iterator_item": [Case([_held(_Iterable([[1.0, 2.0]], started=True).iterate())],
                           {"component": 0, "shape": (2,), "dtype": "float64"})],
    "py_function": [Case([rnd(2, 3), rnd()], attrs={"function": lambda arrays, index: arrays[0] * arrays[1],
                                                     "index": 0, "shape": (2, 3), "dtype": "float64"})],
    "to_dtype": [Case([rnd(2, 3)], {"dtype": "float64"}, diff=(0,)),
                 Case([rnd(2, 3)], {"dtype": "float32"}, diff=(0,), eps=1e-3, rtol=1e-4, atol=1e-5)],
    "where": [Case([mask(3, 4), rnd(3, 4), rnd(4)], diff=(1, 2)), Case([mask(4), rnd(2, 1), rnd()], diff=(1, 2))],
    "matmul": [Case([rnd(3), rnd(3)], diff=(0, 1), label="dot"),
               Case([rnd(2, 3), rnd(3, 4)], diff=(0, 1), label="mm"),
               Case([rnd(2, 3), rnd(3)], diff=(0, 1), label="mv"),
               Case([rnd(3), rnd(3, 2)], diff=(0, 1), label="vm"),
               Case([rnd(2, 2, 3), rnd(2, 3, 4)], diff=(0, 1), label="bmm"),
               Case([rnd(2, 1, 2, 3), rnd(3, 3, 2)], diff=(0, 1), label="broadcast batch")],
    "einsum": [Case([rnd(2, 3), rnd(3, 4)], {"equation": "ij,jk->ik"}, diff=(0, 1)),
               Case([rnd(2, 3, 4), rnd(2, 4, 5)], {"equation": "bij,bjk->bik"}, diff=(0, 1)),
               Case([rnd(3, 4)], {"equation": "ij->j"}, diff=(0,), label="sum out"),
               Case([rnd(2, 3), rnd(3), rnd(3, 2)], {"equation": "ij,j,jk->ik"}, diff=(0, 1, 2)),
               Case([rnd(2, 3), rnd(4)], {"equation": "ij,k->ikj"}, diff=(0, 1), label="outer")],
    "addmm": [Case([rnd(4), rnd(2, 3), rnd(3, 4)], diff=(0, 1, 2)),
              Case([rnd(2, 4), rnd(2, 3), rnd(3, 4)], diff=(0, 1, 2))],
    "sum": [Case([rnd(2, 3, 4)], {"dim": None, "keepdim": False}, diff=(0,)),
            Case([rnd(2, 3, 4)], {"dim": 1, "keepdim": True}, diff=(0,)),
            Case([rnd(2, 3, 4)], {"dim": -1, "keepdim": False}, diff=(0,)),
            Case([rnd(2, 3, 4)], {"dim": (0, 2), "keepdim": False}, diff=(0,)),
            Case([rnd(2, 1, 4)], {"dim": 1, "keepdim": False}, diff=(0,), label="size-1 dim"),
            Case([rnd(0, 3)], {"dim": 0, "keepdim": False}, diff=(0,), label="empty")],
    "mean": [Case([rnd(2, 3, 4)], {"dim": None, "keepdim": False}, diff=(0,)),
             Case([rnd(2, 3, 4)], {"dim": -2, "keepdim": True}, diff=(0,)),
             Case([rnd(2, 3, 4)], {"dim": (0, 2), "keepdim": False}, diff=(0,))],
    "sum_to_size": [Case([rnd(2, 3, 4)], {"shape": (3, 1)}, diff=(0,)),
                    Case([rnd(2, 3)], {"shape": (1, 3)}, diff=(0,))],
    "max": [Case([_spread(3, 4)], {}, diff=(0,)), Case([_spread(3, 4)], {"dim": 1, "keepdim": False}, diff=(0,)),
            Case([_spread(2, 3, 4)], {"dim": -2, "keepdim": True}, diff=(0,))],
    "min": [Case([_spread(3, 4)], {}, diff=(0,)), Case([_spread(3, 4)], {"dim": 0, "keepdim": True}, diff=(0,)),
            Case([_spread(2, 3, 4)], {"dim": -1, "keepdim": False}, diff=(0,))],
    "amax": [Case([_spread(2, 3, 4)], {"dim": (0, 2), "keepdim": False}, diff=(0,)),
             Case([_spread(2, 3, 4)], {"dim": -1, "keepdim": True}, diff=(0,)),
             Case([_spread(3, 4)], {"dim": None, "keepdim": False}, diff=(0,))],
    "amin": [Case([_spread(2, 3, 4)], {"dim": (1,), "keepdim": True}, diff=(0,)),
             Case([_spread(3, 4)], {"dim": None, "keepdim": False}, diff=(0,))],
    "var": [Case([rnd(3, 4)], {"dim": None, "correction": 1, "keepdim": False}, diff=(0,)),
            Case([rnd(3, 4)], {"dim": 1, "correction": 1, "keepdim": True}, diff=(0,)),
            Case([rnd(2, 3, 4)], {"dim": (0, -1), "correction": 0, "keepdim": False}, diff=(0,))],
    "std": [Case([rnd(3, 4)], {"dim": None, "correction": 1, "keepdim": False}, diff=(0,)),
            Case([rnd(3, 4)], {"dim": -1, "correction": 0, "keepdim": True}, diff=(0,)),
            Case([rnd(2, 3, 4)], {"dim": (0, 2), "correction": 1, "keepdim": False}, diff=(0,))],
    "norm": [Case([rnd(3, 4)], {"p": 2.0, "dim": None, "keepdim": False}, diff=(0,)),
             Case([rnd(3, 4)], {"p": 2.0, "dim": 1, "keepdim": True}, diff=(0,)),
             Case([rnd(2, 3, 4)], {"p": 2.0, "dim": (0, -1), "keepdim": False}, diff=(0,)),
             Case([away(3, 4)], {"p": 1.0, "dim": 1, "keepdim": False}, diff=(0,)),
             Case([away(3, 4)], {"p": 3.0, "dim": None, "keepdim": False}, diff=(0,)),
             Case([away(3, 4)], {"p": 1.5, "dim": 0, "keepdim": True}, diff=(0,)),
             Case([away(3, 4)], {"p": 0.5, "dim": 1, "keepdim": False}, diff=(0,)),
             Case([_spread(3, 4)], {"p": float("inf"), "dim": 1, "keepdim": False}, diff=(0,)),
             Case([_spread(3, 4)], {"p": float("-inf"), "dim": None, "keepdim": False}, diff=(0,))],
    "logsumexp": [Case([rnd(3, 4) * 3], {"dim": 1, "keepdim": False}, diff=(0,)),
                  Case([rnd(2, 3, 4)], {"dim": (0, 2), "keepdim": True}, diff=(0,))],
    "reshape": [Case([rnd(2, 3, 4)], {"shape": (4, -1)}, diff=(0,))],
    "expand": [Case([rnd(3, 1)], {"shape": (2, 3, 4)}, diff=(0,)), Case([rnd(3, 1)], {"shape": (2, -1, 4)}, diff=(0,))],
    "permute": [Case([rnd(2, 3, 4)], {"dims": (2, 0, 1)}, diff=(0,))],
    "transpose": [Case([rnd(2, 3, 4)], {"dim0": 0, "dim1": 2}, diff=(0,)),
                  Case([rnd(2, 3)], {"dim0": 0, "dim1": 1}, diff=(0,))],
    "squeeze": [Case([rnd(2, 1, 3, 1)], {}, diff=(0,)), Case([rnd(2, 1, 3)], {"dim": 1}, diff=(0,)),
                Case([rnd(1, 3, 1)], {"dim": (0, 2)}, diff=(0,))],
    "unsqueeze": [Case([rnd(2, 3)], {"dim": 1}, diff=(0,)), Case([rnd(2, 3)], {"dim": -1}, diff=(0,))],
    "cat": [Case([rnd(2, 1), rnd(2, 3), rnd(2, 2)], {"dim": 1}, diff=(0, 1, 2)),
            Case([rnd(1, 3), rnd(2, 3)], {"dim": 0}, diff=(0, 1))],
    "stack": [Case([rnd(2, 3), rnd(2, 3)], {"dim": 1}, diff=(0, 1)),
              Case([rnd(3), rnd(3), rnd(3)], {"dim": 0}, diff=(0, 1, 2))],
    "slice": [Case([rnd(3, 5)], {"dim": 1, "start": 1, "end": 4, "step": 2}, diff=(0,)),
              Case([rnd(4, 2)], {"dim": 0, "start": 2, "end": 10, "step": 1}, diff=(0,))],
    "slice_backward": [Case([rnd(3, 2)], {"shape": (3, 5), "dim": 1, "start": 1, "end": 4, "step": 2}, diff=(0,))],
    "select": [Case([rnd(3, 4)], {"dim": 1, "index": 2}, diff=(0,)), Case([rnd(3, 4)], {"dim": 0, "index": -1}, diff=(0,)),
               Case([rnd(3, 4)], {"dim": 1, "index": 0, "fn": "unbind"}, diff=(0,), label="unbind")],
    "select_backward": [Case([rnd(3)], {"shape": (3, 4), "dim": 1, "index": 2}, diff=(0,))],
    "index": [Case([rnd(4, 3), np.array([[0, 2], [3, 0]])], {"positions": (0,)}, diff=(0,), label="repeats"),
              Case([rnd(4, 3), np.array([1, 3]), np.array([0, 2])], {"positions": (0, 1)}, diff=(0,)),
              Case([rnd(2, 4, 3), np.array([2, 2, 1])], {"positions": (1,)}, diff=(0,)),
              Case([rnd(4), np.array(2)], {"positions": (0,)}, diff=(0,), label="0-d index of a vector")],
    "index_backward": [Case([rnd(2, 2, 3), np.array([[0, 2], [3, 0]])], {"shape": (4, 3), "positions": (0,)},
                            diff=(0,))],
    "index_put": [Case([rnd(4, 3), rnd(2, 3), np.array([3, 1])], {"positions": (0,), "accumulate": False},
                       diff=(0, 1)),
                  Case([rnd(4, 3), rnd(3), np.array([3, 1, 3])], {"positions": (0,), "accumulate": True},
                       diff=(0, 1), label="accumulate, broadcast values"),
                  Case([rnd(4, 3), rnd(), np.array([0, 2]), np.array([1, 1])], {"positions": (0, 1),
                                                                               "accumulate": False}, diff=(0, 1))],
    "gather": [Case([rnd(3, 4), ints(4, 3, 2)], {"dim": 1}, diff=(0,)),
               Case([rnd(3, 4), ints(3, 2, 2)], {"dim": 0}, diff=(0,), label="smaller index")],
    "gather_backward": [Case([rnd(3, 2), ints(4, 3, 2)], {"dim": 1, "shape": (3, 4)}, diff=(0,))],
    "embedding": [Case([ints(5, 2, 3), rnd(5, 4)], {"padding_idx": None}, diff=(1,)),
                  # padding_idx zeroes a row's gradient by definition (not the derivative): tested on its own
                  Case([np.array([1, 0, 1, 3]), rnd(5, 2)], {"padding_idx": 1}, label="padding_idx")],
    "softmax": [Case([rnd(3, 4) * 3], {"dim": 1}, diff=(0,)), Case([rnd(2, 3, 4)], {"dim": 0}, diff=(0,))],
    "log_softmax": [Case([rnd(3, 4) * 3], {"dim": 1}, diff=(0,)), Case([rnd(2, 3, 4)], {"dim": 2}, diff=(0,))],
    "conv2d": [Case([rnd(2, 3, 5, 5), rnd(4, 3, 3, 3), rnd(4)], {"stride": (1, 1), "padding": (1, 1)},
                    diff=(0, 1, 2), label="bias, padding"),
               Case([rnd(1, 2, 5, 6), rnd(3, 2, 2, 3)], {"stride": (2, 1), "padding": (0, 0)}, diff=(0, 1),
                    label="strided, no bias")],
    "convolution": [
        Case([rnd(2, 4, 6, 5), rnd(6, 2, 3, 2), rnd(6)], {"stride": (1, 2), "padding": (2, 1), "dilation": (2, 1),
                                                        "groups": 2}, diff=(0, 1, 2), label="2-d dilated, groups"),
        Case([rnd(2, 3, 9), rnd(4, 3, 3)], {"stride": (2,), "padding": (1,), "dilation": (2,), "groups": 1},
             diff=(0, 1), label="1-d"),
        Case([rnd(1, 4, 3, 4), rnd(4, 3, 3, 3), rnd(6)], {"stride": (2, 2), "padding": (1, 0), "dilation": (1, 1),
                                                        "groups": 2, "transposed": True, "output_padding": (1, 0)},
             diff=(0, 1, 2), label="2-d transposed, groups"),
        Case([rnd(2, 2, 5), rnd(2, 3, 4)], {"stride": (3,), "padding": (2,), "dilation": (2,), "groups": 1,
                                           "transposed": True, "output_padding": (1,)}, diff=(0, 1),
             label="1-d transposed, dilated")],
    "convolution_weight_grad": [
        Case([rnd(2, 4, 6, 5), rnd(2, 6, 6, 3)], {"stride": (1, 2), "padding": (2, 1), "dilation": (2, 1),
                                                 "groups": 2, "weight_shape": (6, 2, 3, 2)}, diff=(0, 1))],
    "native_group_norm": [
        Case([rnd(2, 6, 3, 2), rnd(6), rnd(6)], {"groups": 3, "eps": 1e-5, "has_weight": True, "has_bias": True},
             diff=(0, 1, 2)),
        Case([rnd(3, 4, 5)], {"groups": 2, "eps": 0.1, "has_weight": False, "has_bias": False}, diff=(0,)),
        Case([rnd(2, 4), rnd(4)], {"groups": 1, "eps": 1e-5, "has_weight": True, "has_bias": False}, diff=(0, 1))],
    "pad": [Case([rnd(2, 3, 4)], {"pad": (1, 2, -1, 1), "mode": "constant", "value": 0.5}, diff=(0,)),
            Case([rnd(1, 2, 4, 5)], {"pad": (2, 1, 3, 0), "mode": "reflect", "value": 0.0}, diff=(0,)),
            Case([rnd(1, 2, 3, 3)], {"pad": (2, 1, 1, 4), "mode": "replicate", "value": 0.0}, diff=(0,)),
            Case([rnd(2, 4)], {"pad": (3, 2), "mode": "circular", "value": 0.0}, diff=(0,))],
    "pad_backward": [Case([rnd(1, 2, 7, 8)], {"pad": (2, 1, 3, 0), "mode": "reflect", "input_shape": (1, 2, 4, 5)},
                          diff=(0,))],
    "interpolate": [Case([rnd(1, 2, 3, 4)], {"size": (5, 7), "mode": "bilinear", "align_corners": False,
                                             "scales": None}, diff=(0,)),
                    Case([rnd(1, 2, 3, 4)], {"size": (6, 5), "mode": "bilinear", "align_corners": True,
                                             "scales": None}, diff=(0,)),
                    Case([rnd(2, 1, 5)], {"size": (8,), "mode": "linear", "align_corners": False, "scales": (1.7,)},
                         diff=(0,)),
                    Case([rnd(1, 2, 3, 4)], {"size": (7, 8), "mode": "nearest", "scales": None}, diff=(0,)),
                    Case([rnd(1, 1, 5)], {"size": (3,), "mode": "nearest-exact", "scales": None}, diff=(0,)),
                    Case([rnd(1, 2, 3, 4)], {"size": (7, 9), "mode": "bicubic", "align_corners": False,
                                             "scales": None}, diff=(0,)),
                    Case([rnd(2, 1, 5, 4)], {"size": (3, 8), "mode": "bicubic", "align_corners": True,
                                             "scales": None}, diff=(0,)),
                    Case([rnd(1, 1, 4, 3)], {"size": (10, 7), "mode": "bicubic", "align_corners": False,
                                             "scales": (2.5, 2.5)}, diff=(0,))],
    "interpolate_backward": [Case([rnd(1, 2, 5, 7)], {"input_shape": (1, 2, 3, 4), "size": (5, 7),
                                                      "mode": "bilinear", "align_corners": False, "scales": None},
                                  diff=(0,)),
                             Case([rnd(1, 2, 7, 9)], {"input_shape": (1, 2, 3, 4), "size": (7, 9),
                                                      "mode": "bicubic", "align_corners": False, "scales": None},
                                  diff=(0,))],
    "conv2d_input_grad": [Case([_conv_g((1, 2, 5, 5), (3, 2, 3, 3), (2, 2), (1, 1)), rnd(3, 2, 3, 3)],
                               {"stride": (2, 2), "padding": (1, 1), "input_shape": (1, 2, 5, 5)}, diff=(0, 1))],
    "conv2d_weight_grad": [Case([rnd(1, 2, 5, 5), _conv_g((1, 2, 5, 5), (3, 2, 3, 3), (2, 2), (1, 1))],
                                {"stride": (2, 2), "padding": (1, 1), "weight_shape": (3, 2, 3, 3)}, diff=(0, 1))],
    "max_pool2d": [Case([_spread(1, 2, 5, 6)], {"kernel_size": (2, 3), "stride": (2, 2), "padding": (1, 0),
                                                "ceil_mode": True}, diff=(0,), label="ceil_mode"),
                   Case([_spread(2, 2, 4, 4)], {"kernel_size": (2, 2), "stride": (2, 2), "padding": (0, 0)}, diff=(0,)),
                   Case([_spread(1, 2, 5, 5)], {"kernel_size": (3, 3), "stride": (2, 2), "padding": (1, 1)},
                        diff=(0,), label="overlapping, padded")],
    "avg_pool2d": [Case([rnd(1, 2, 5, 6)], {"kernel_size": (2, 3), "stride": (2, 2), "padding": (1, 1),
                                            "ceil_mode": True}, diff=(0,), label="ceil_mode"),
                   Case([rnd(1, 2, 5, 6)], {"kernel_size": (3, 3), "stride": (2, 2), "padding": (1, 1),
                                            "ceil_mode": True, "count_include_pad": False}, diff=(0,),
                        label="ceil_mode, padding not counted"),
                   Case([rnd(1, 1, 4, 5)], {"kernel_size": (3, 3), "stride": (1, 2), "padding": (1, 1),
                                            "count_include_pad": False}, diff=(0,), label="padding not counted"),
                   Case([rnd(1, 1, 4, 4)], {"kernel_size": (2, 2), "stride": (2, 2), "padding": (0, 0),
                                            "divisor_override": 3}, diff=(0,), label="divisor_override"),
                   Case([rnd(2, 2, 4, 4)], {"kernel_size": (2, 2), "stride": (2, 2), "padding": (0, 0)}, diff=(0,)),
                   Case([rnd(1, 2, 5, 5)], {"kernel_size": (3, 3), "stride": (2, 2), "padding": (1, 1)}, diff=(0,))],
    "avg_pool2d_backward": [Case([rnd(1, 2, 3, 3)], {"kernel_size": (3, 3), "stride": (2, 2), "padding": (1, 1),
                                                     "input_shape": (1, 2, 5, 5)}, diff=(0,))],
    "tril": [Case([rnd(3, 4)], {"diagonal": 0}, diff=(0,)), Case([rnd(2, 3, 3)], {"diagonal": -1}, diff=(0,))],
    "triu": [Case([rnd(3, 4)], {"diagonal": 1}, diff=(0,))],
    "dropout": [Case([rnd(3, 4), mask(3, 4)], {"p": 0.3}, diff=(0,))],
    "mse_loss": [Case([rnd(3, 4), rnd(3, 4)], {"reduction": r}, diff=(0, 1)) for r in ("mean", "sum", "none")],
    "nll_loss": [Case([rnd(4, 5), np.array([1, 0, 4, 1])], {"reduction": "mean", "ignore_index": -100}, diff=(0,)),
                 Case([rnd(4, 5), np.array([1, -100, 4, 1]), pos(5)], {"reduction": "mean", "ignore_index": -100},
                      diff=(0,), label="weight, ignore_index"),
                 Case([rnd(4, 5), np.array([2, 0, 4, 2])], {"reduction": "none", "ignore_index": 2}, diff=(0,)),
                 Case([rnd(2, 3, 2, 2), ints(3, 2, 2, 2)], {"reduction": "sum", "ignore_index": -100}, diff=(0,),
                      label="2d")],
    "binary_cross_entropy": [
        Case([pos(3, 4, lo=0.1, hi=0.9), R.random((3, 4)), np.array(1.0)], {"reduction": "mean"}, diff=(0, 1)),
        Case([pos(3, 4, lo=0.1, hi=0.9), R.random((3, 4)), pos(4)], {"reduction": "none"}, diff=(0, 1))],
    "binary_cross_entropy_with_logits": [
        Case([rnd(3, 4) * 2, R.random((3, 4)), np.array(1.0), np.array(1.0)], {"reduction": "mean"}, diff=(0, 1)),
        Case([rnd(3, 4) * 2, R.random((3, 4)), pos(3, 4), pos(4)], {"reduction": "sum"}, diff=(0, 1),
             label="weight, pos_weight")],
    "leaky_relu": [Case([away(3, 4)], {"negative_slope": 0.1}, diff=(0,)),
                   Case([away(2, 3)], {"negative_slope": -0.5}, diff=(0,), label="negative slope")],
    "silu": [Case([rnd(3, 4) * 3], diff=(0,))],
    # (values kept away from the kinks at the bounds: a finite difference across one is not a derivative)
    "hardtanh": [Case([np.array([-2.5, -0.7, 0.2, 0.9, 1.8])], {"min_val": -1.0, "max_val": 1.0}, diff=(0,)),
                 Case([np.array([[-0.4, 0.3], [5.2, 6.5]])], {"min_val": 0.0, "max_val": 6.0}, diff=(0,))],
    "hardswish": [Case([np.array([-4.2, -2.5, -0.3, 0.8, 2.9, 3.6])], diff=(0,))],
    "hardsigmoid": [Case([np.array([-4.2, -2.5, -0.3, 0.8, 2.9, 3.6])], diff=(0,))],
    "elu": [Case([away(3, 4) * 2], {"alpha": 1.0}, diff=(0,)), Case([away(5)], {"alpha": 0.3}, diff=(0,)),
            Case([away(3, 4) * 2], {"alpha": 1.6732632423543772, "scale": 1.0507009873554805, "input_scale": 1.0},
                 diff=(0,)),                                                          # selu
            Case([away(5)], {"alpha": 0.5, "scale": 2.0, "input_scale": 3.0}, diff=(0,))],
    "celu": [Case([away(3, 4) * 2], {"alpha": 1.0}, diff=(0,)), Case([away(5)], {"alpha": 0.7}, diff=(0,))],
    "log_sigmoid": [Case([rnd(3, 4) * 5], diff=(0,)), Case([np.array([-800.0, -30.0, 0.0, 30.0, 800.0])], diff=(0,))],
    "mish": [Case([rnd(3, 4) * 3], diff=(0,))],
    "native_layer_norm": [
        Case([rnd(3, 4), pos(4), rnd(4)], {"normalized_ndim": 1, "eps": 1e-5, "has_weight": True,
                                            "has_bias": True}, diff=(0, 1, 2)),
        Case([rnd(2, 3, 4)], {"normalized_ndim": 2, "eps": 1e-3, "has_weight": False, "has_bias": False},
             diff=(0,), label="two dims, no affine"),
        Case([rnd(5), rnd(5)], {"normalized_ndim": 1, "eps": 1e-5, "has_weight": False, "has_bias": True},
             diff=(0, 1), label="1-D, bias only")],
    "native_batch_norm": [
        Case([rnd(4, 3), pos(3), rnd(3)], {"training": True, "eps": 1e-5, "has_weight": True, "has_bias": True},
             diff=(0, 1, 2)),
        Case([rnd(2, 3, 2, 2)], {"training": True, "eps": 1e-3, "has_weight": False, "has_bias": False},
             diff=(0,), label="2d, no affine"),
        Case([rnd(4, 3, 2), pos(3), rnd(3), rnd(3), pos(3)], {"training": False, "eps": 1e-5, "has_weight": True,
                                                              "has_bias": True}, diff=(0, 1, 2), label="eval"),
        Case([rnd(3, 2), pos(2), rnd(2), pos(2)], {"training": False, "eps": 1e-5, "has_weight": True,
                                                   "has_bias": False}, diff=(0, 1), label="eval, weight only"),
        Case([rnd(5, 2, 3), rnd(2)], {"training": True, "eps": 1e-5, "has_weight": False, "has_bias": True},
             diff=(0, 1), label="bias only"),
        Case([rnd(3, 2), rnd(2), pos(2)], {"training": False, "eps": 0.1, "has_weight": False, "has_bias": False},
             diff=(0,), label="eval, no affine")],
    "adaptive_avg_pool2d": [Case([rnd(2, 2, 5, 7)], {"output_size": (2, 3)}, diff=(0,), label="overlapping bins"),
                            Case([rnd(3, 4, 4)], {"output_size": (2, 4)}, diff=(0,), label="3-D input")],
    "adaptive_avg_pool2d_backward": [Case([rnd(1, 2, 2, 3)], {"input_shape": (1, 2, 5, 7)}, diff=(0,))],
    "sort": [_sorted(_spread(3, 4), dim=1), _sorted(_spread(3, 2), dim=0, descending=True)],
    "topk": [_sorted(_spread(3, 5), dim=1, descending=True, k=2), _sorted(_spread(4, 2), dim=0, k=1),
             _sorted(_spread(2, 3), dim=1, k=0)],
    "cummax": [_chosen("cummax_indices", _spread(3, 5), 1), _chosen("cummax_indices", _spread(4, 2), 0)],
    "cummin": [_chosen("cummin_indices", _spread(3, 5), 1), _chosen("cummin_indices", _spread(4, 2), -2)],
    "kthvalue": [_chosen("kthvalue_indices", _spread(3, 5), 1, k=2, keepdim=False),
                 _chosen("kthvalue_indices", _spread(4, 2), 0, k=4, keepdim=True)],
    "median_dim": [_chosen("median_indices", _spread(3, 5), 1, keepdim=False),
                   _chosen("median_indices", _spread(4, 2), 0, keepdim=True)],
    "mode": [_chosen("mode_indices", _spread(3, 5), 1, keepdim=False),
             _chosen("mode_indices", _TIES, 1, keepdim=True)],
    "median": [Case([_spread(3, 5)], diff=(0,)), Case([_spread(4)], diff=(0,), label="even count: the lower"),
               Case([_TIES], label="ties share the gradient")],
    "cummax_indices": [Case([_TIES], {"dim": 1}), Case([_spread(3, 4)], {"dim": 0})],
    "cummin_indices": [Case([_TIES], {"dim": 1}), Case([_spread(3, 4)], {"dim": -1})],
    "kthvalue_indices": [Case([_TIES], {"k": 3, "dim": 1, "keepdim": False}),
                         Case([_spread(3, 4)], {"k": 1, "dim": 0, "keepdim": True})],
    "median_indices": [Case([_TIES], {"dim": 1, "keepdim": False}), Case([_spread(3, 4)], {"dim": 0, "keepdim": True})],
    "mode_indices": [Case([_TIES], {"dim": 1, "keepdim": False}), Case([_spread(3, 4)], {"dim": 0, "keepdim": True})],
    "smooth_l1_loss": [Case([rnd(3, 4), rnd(3, 4)], {"reduction": r, "beta": b}, diff=(0, 1))
                       for r, b in (("mean", 1.0), ("sum", 0.5), ("none", 2.0))],
    "huber_loss": [Case([rnd(3, 4), rnd(3, 4)], {"reduction": r, "delta": d}, diff=(0, 1))
                   for r, d in (("mean", 1.0), ("sum", 0.5), ("none", 2.0))],
    "div_scalar": [Case([rnd(2, 3)], {"divisor": 3}, diff=(0,)), Case([rnd()], {"divisor": 0.25}, diff=(0,))],
    # prod: exact with one zero and with several (the exclusive-product rule never divides by x)
    "prod": [Case([away(3, 4)], {"dim": None, "keepdim": False}, diff=(0,)),
             Case([away(3, 4)], {"dim": 1, "keepdim": False}, diff=(0,)),
             Case([away(2, 3, 4)], {"dim": -2, "keepdim": True}, diff=(0,), label="negative dim, keepdim"),
             Case([np.array([[1.5, 0.0, -2.0], [0.5, 1.2, 0.7]])], {"dim": None, "keepdim": False}, diff=(0,),
                  label="one zero"),
             Case([np.array([[1.5, 0.0, -2.0], [0.0, 1.2, 0.7]])], {"dim": None, "keepdim": False}, diff=(0,),
                  label="two zeros"),
             Case([np.array([[1.5, 0.0, 0.0, 2.0], [0.0, 1.2, 0.7, -1.1]])], {"dim": 1, "keepdim": False},
                  diff=(0,), label="zeros along dim"),
             Case([away(3, 1)], {"dim": 1, "keepdim": False}, diff=(0,), label="size-1 dim"),
             Case([away()], {"dim": None, "keepdim": False}, diff=(0,), label="0-d"),
             Case([away()], {"dim": -1, "keepdim": True}, diff=(0,), label="0-d along dim -1"),
             Case([rnd(0, 3)], {"dim": 0, "keepdim": False}, diff=(0,), label="empty"),
             Case([away(2, 3).astype(np.float32)], {"dim": 1, "keepdim": False, "dtype": "float64"}, diff=(0,),
                  eps=2.0 ** -10, rtol=1e-5, atol=1e-6, label="dtype=")],
    "prod_others": [Case([away(3, 4)], {"dim": 1}, diff=(0,)),
                    Case([away(2, 3)], {"dim": None}, diff=(0,), label="all elements"),
                    Case([np.array([[1.5, 0.0, 0.0, 2.0], [0.0, 1.2, 0.7, -1.1]])], {"dim": -1}, diff=(0,),
                         label="zeros"),
                    Case([away(2, 1)], {"dim": 1}, diff=(0,), label="size-1 dim"),
                    Case([away()], {"dim": 0}, diff=(0,), label="0-d")],
    "cumprod": [Case([rnd(2, 3, 4)], {"dim": 1}, diff=(0,)), Case([rnd(5)], {"dim": 0}, diff=(0,)),
                Case([np.array([[1.5, 0.0, -2.0, 0.7], [0.0, 0.0, 1.2, 3.0]])], {"dim": 1}, diff=(0,),
                     label="zeros"),
                Case([rnd(3, 2)], {"dim": 0, "dtype": "float64"}, diff=(0,))],
    "flip": [Case([rnd(2, 3, 4)], {"dims": (0, 2)}, diff=(0,)), Case([rnd(3)], {"dims": (0,)}, diff=(0,)),
             Case([ints(5, 2, 3)], {"dims": (1,)})],
    "roll": [Case([rnd(2, 3, 4)], {"shifts": (1, -2), "dims": (0, 2)}, diff=(0,)),
             Case([rnd(3, 4)], {"shifts": (5,), "dims": None}, diff=(0,))],
    "cumsum": [Case([rnd(2, 3, 4)], {"dim": 1}, diff=(0,)),
               Case([rnd(3, 4)], {"dim": -1, "reverse": True}, diff=(0,), label="reverse, negative dim"),
               Case([rnd(3, 1)], {"dim": 1}, diff=(0,), label="size-1 dim"),
               Case([rnd()], {"dim": 0}, diff=(0,), label="0-d"),
               Case([rnd(2, 3).astype(np.float32)], {"dim": 0, "dtype": "float64"}, diff=(0,), eps=2.0 ** -10,
                    rtol=1e-5, atol=1e-6, label="dtype=")],
    # (scatter's indices are distinct along dim: with repeats PyTorch leaves which write wins unspecified)
    "scatter": [Case([rnd(3, 4), np.array([[3, 0], [1, 2], [0, 3]]), rnd(3, 2)], {"dim": 1}, diff=(0, 2)),
                Case([rnd(3, 2), np.array([[2, 0]]), rnd(1, 2)], {"dim": -2}, diff=(0, 2),
                     label="negative dim, smaller index")],
    "scatter_value": [Case([rnd(3, 4), np.array([[3, 0], [1, 2], [0, 3]])], {"dim": 1, "value": 0.5}, diff=(0,))],
    "scatter_add": [Case([rnd(3, 4), np.array([[3, 3], [1, 2], [0, 0]]), rnd(3, 2)], {"dim": 1}, diff=(0, 2),
                         label="repeats add up"),
                    Case([rnd(2, 3), np.array([[1, 0, 1], [1, 1, 0]]), rnd(2, 3)], {"dim": 0}, diff=(0, 2))],
    # ---- ops without gradient: used by the shape/dtype rule checks only ----
    "gt": binary_cases(), "lt": binary_cases(), "ge": binary_cases(), "le": binary_cases(),
    "eq": binary_cases(), "ne": binary_cases(),
    "sign": [Case([away(2, 3)], diff=(0,))],
    "isnan": [Case([np.array([1.0, np.nan])])],
    "isinf": [Case([np.array([1.0, np.inf, -np.inf, np.nan])])],
    "isposinf": [Case([np.array([1.0, np.inf, -np.inf, np.nan])])],
    "isneginf": [Case([np.array([1.0, np.inf, -np.inf, np.nan])])],
    "isfinite": [Case([np.array([1.0, np.inf, -np.inf, np.nan])])],
    "bitwise_and": [Case([mask(3, 4), mask(4)])], "bitwise_or": [Case([mask(3, 4), mask(4)])],
    "bitwise_xor": [Case([ints(8, 3), ints(8, 3)])], "bitwise_not": [Case([mask(3)])],
    "argmax": [Case([_spread(3, 4)], {}), Case([_spread(3, 4)], {"dim": 1, "keepdim": True})],
    "argmin": [Case([_spread(3, 4)], {"dim": -1, "keepdim": False})],
    "one_hot": [Case([ints(4, 2, 3)], {"num_classes": 5})],
    "argsort": [Case([_spread(3, 4)], {"dim": -1, "descending": False}),
                Case([_spread(3, 4)], {"dim": 0, "descending": True})],
    "max_pool2d_indices": [Case([_spread(1, 2, 5, 5)], {"kernel_size": (3, 3), "stride": (2, 2), "padding": (1, 1)})],
}

# Added after the dict so that the shared generator's draws for every case above stay as they were.
CASES["reciprocal"] = [Case([away(2, 3)], diff=(0,)),
                       Case([away(3, 1) * 4], diff=(0,), label="larger |x|"),
                       Case([away()], diff=(0,), label="0-d"),
                       Case([np.array([1, -2, 4, 0])], label="int64 (float32 out, 1/0 = inf)")]
