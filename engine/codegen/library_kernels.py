"""Hand-lowered C kernels for library ops that no loop nest expresses.

`nll_loss` (forward: one log-probability gathered per row, then a masked sum or mean) and
`gather_backward` with one index per row (its gradient: a row of zeros with the incoming
gradient at the target) run as registry ops in ~15 numpy calls each, which on a batch of 64 cost
more than the kernels around them (73 and 24 us against 1-2 us here). Both read integer indices:
a kernel that finds one out of range writes a status word instead of memory it does not own, and
the executor raises the error the registry's forward would raise. `native_layer_norm` (a row's
mean and variance, then every element of the row normalized, scaled and shifted) is three passes
over each row; its numpy forward is a dozen array-sized temporaries.

Each kernel takes one extra pointer after its outputs, `int64_t *status` (2 words: a flag and the
offending index), which the executor allocates and checks (layer norm reads no index: it never
writes it).
"""
from __future__ import annotations

import numpy as np

from engine.codegen.kernel import C_DTYPES, Arg, Kernel, NotLowerable, contiguous_strides, describe
from engine.ir.graph import CALL, Node
from engine.ops.registry import OPS

# the ops with a hand-written kernel here (OpDef.library_kernel), by name for the executor
LIBRARY_OPS = frozenset(name for name, op in OPS.items() if op.library_kernel)
STATUS_WORDS = 2
FLOATS = ("float32", "float64")


def lower_library(name: str, node: Node, input_strides: dict) -> Kernel:
    """The kernel of `node` (an op with OpDef.library_kernel), or NotLowerable for the cases it does not cover."""
    if node.kind != CALL or node.op not in OPS or not OPS[node.op].library_kernel:
        raise NotLowerable(f"{node.id}: no library kernel for {node.op or node.kind}")
    if any(str(v.dtype) not in C_DTYPES for v in node.inputs + node.outputs):
        raise NotLowerable(f"{node.id}: dtype without a C type")
    _CHECKS[node.op](node)
    strides = [tuple(input_strides.get(v.id) or contiguous_strides(v.shape)) for v in node.inputs]
    inputs = [Arg(v.id, np.dtype(v.dtype), tuple(v.shape), st) for v, st in zip(node.inputs, strides)]
    kernel = Kernel(name, tuple(node.inputs[0].shape), (), inputs,
                    [Arg(node.id, np.dtype(node.out.dtype), tuple(node.out.shape))], node_ids=[node.id])
    kernel.library = node.op
    kernel.library_attrs = dict(node.attrs)
    kernel.library_strides = strides
    kernel.library_comment = describe(node)
    if node.op == "native_layer_norm" and not all(
            _dense(a.shape, strides) for a, strides in zip(inputs, kernel.library_strides)):
        raise NotLowerable(f"{node.id}: layer norm kernel reads row-major inputs")
    return kernel


def _dense(shape, strides) -> bool:
    """Row-major in memory (the stride of a size-1 dim does not matter)."""
    return all(size == 1 or stride == want
               for size, stride, want in zip(shape, strides, contiguous_strides(shape)))


def _check_nll(node: Node) -> None:
    logp, target = node.inputs[0], node.inputs[1] if len(node.inputs) > 1 else None
    if len(node.inputs) != 2 or len(logp.shape) != 2 or len(target.shape) != 1 or \
            str(logp.dtype) not in FLOATS or np.dtype(target.dtype).kind not in "iu":
        raise NotLowerable(f"{node.id}: nll_loss kernel covers (N, C) log-probabilities, integer targets, no weight")
    if node.attrs.get("reduction", "mean") not in ("mean", "sum", "none"):
        raise NotLowerable(f"{node.id}: reduction {node.attrs.get('reduction')!r}")


def _check_layer_norm(node: Node) -> None:
    if str(node.inputs[0].dtype) not in FLOATS or any(v.dtype != node.inputs[0].dtype for v in node.inputs) or \
            node.attrs.get("normalized_ndim", 0) < 1:
        raise NotLowerable(f"{node.id}: layer norm kernel covers float inputs of one dtype")


def _check_gather_backward(node: Node) -> None:
    g, index = node.inputs
    shape = tuple(node.attrs["shape"])
    dim = node.attrs["dim"]
    if len(shape) != 2 or not isinstance(dim, int) or not -2 <= dim < 2:
        raise NotLowerable(f"{node.id}: gather_backward kernel covers 2-D results")
    d = dim % 2
    row = tuple(1 if i == d else s for i, s in enumerate(shape))
    if tuple(g.shape) != row or tuple(index.shape) != row or np.dtype(index.dtype).kind not in "iu":
        raise NotLowerable(f"{node.id}: gather_backward kernel covers one index per row along dim")


def _comment(kernel: Kernel) -> list[str]:
    """The node's line as a comment (display only: a kernel rebuilt to be compiled has none)."""
    return [f"  /* {kernel.library_comment} */"] if kernel.library_comment else []


def render_library(kernel: Kernel, c_types: dict, literal) -> list[str]:
    """The C body lines of a library kernel (c_render supplies its type names and literals)."""
    return _RENDERERS[kernel.library](kernel, c_types, literal)


def _render_nll(kernel: Kernel, c_types: dict, literal) -> list[str]:
    (n, c), (s0, s1), (ts,) = kernel.inputs[0].shape, *kernel.library_strides
    t = c_types[kernel.outputs[0].dtype.name]
    ignore = int(kernel.library_attrs.get("ignore_index", -100))
    reduction = kernel.library_attrs.get("reduction", "mean")
    lines = [*_comment(kernel),
             "  /* bounds first, as the registry's forward checks them before reading anything */",
             f"  for (int64_t i = 0; i < {n}; i++) {{",
             f"    const int64_t target = (int64_t)in1[i*{ts}];",
             f"    if (target != {ignore} && (target < 0 || target >= {c})) "
             "{ status[0] = 1; status[1] = target; return; }",
             "  }"]
    if reduction != "none":
        lines.append("  double total = 0, weight = 0;   /* numpy sums pairwise; double keeps as close */")
    lines += [f"  for (int64_t i = 0; i < {n}; i++) {{",
              f"    const int64_t target = (int64_t)in1[i*{ts}];",
              f"    const {t} w = ({t})(target != {ignore});",
              f"    const int64_t safe = target != {ignore} ? target : 0;",
              # -w * picked literally: an ignored row whose picked value is -inf gives nan as numpy does
              f"    const {t} loss = -w * in0[i*{s0} + safe*{s1}];"]
    if reduction == "none":
        lines.append("    out0[i] = loss;")
        return lines + ["  }"]
    lines += ["    total += loss;", "    weight += w;", "  }"]
    value = f"({t})total / ({t})weight" if reduction == "mean" else "total"
    return lines + [f"  out0[0] = ({t})({value});"]


def _render_gather_backward(kernel: Kernel, c_types: dict, literal) -> list[str]:
    rows, cols = kernel.outputs[0].shape
    d = kernel.library_attrs["dim"] % 2
    (gs0, gs1), (is0, is1) = kernel.library_strides
    size = cols if d == 1 else rows
    t = c_types[kernel.outputs[0].dtype.name]
    zero = literal(0, kernel.outputs[0].dtype)
    # one index per row (d = 1) or per column (d = 0): loop over the other dim
    count, g_step, i_step = (rows, gs0, is0) if d == 1 else (cols, gs1, is1)
    at = "k*{cols} + idx".format(cols=cols) if d == 1 else "idx*{cols} + k".format(cols=cols)
    return [*_comment(kernel),
            f"  for (int64_t k = 0; k < {count}; k++) {{",
            f"    int64_t idx = (int64_t)in1[k*{i_step}];",
            f"    if (idx < 0) idx += {size};   /* numpy's negative indices */",
            f"    if (idx < 0 || idx >= {size}) {{ status[0] = 1; status[1] = (int64_t)in1[k*{i_step}]; return; }}",
            "  }",
            f"  for (int64_t k = 0; k < {rows * cols}; k++) out0[k] = {zero};",
            f"  for (int64_t k = 0; k < {count}; k++) {{",
            f"    int64_t idx = (int64_t)in1[k*{i_step}];",
            f"    if (idx < 0) idx += {size};",
            # g + 0: the sum np.add.at would store (it turns -0.0 into +0.0), as the registry does
            f"    out0[{at}] = ({t})(in0[k*{g_step}] + {zero});",
            "  }"]


def _render_layer_norm(kernel: Kernel, c_types: dict, literal) -> list[str]:
    """Per row of the normalized dims: the mean, the (biased) variance around it, both summed in
    double, then out = (x - mean) * rstd in the row's type, times the weight, plus the bias."""
    attrs = kernel.library_attrs
    shape = kernel.inputs[0].shape
    k = int(attrs["normalized_ndim"])
    cols = int(np.prod(shape[len(shape) - k:], dtype=np.int64))
    rows = int(np.prod(shape[:len(shape) - k], dtype=np.int64))
    t = c_types[kernel.outputs[0].dtype.name]
    weight = "in1" if attrs.get("has_weight") else None
    bias = f"in{1 + bool(weight)}" if attrs.get("has_bias") else None
    lines = [*_comment(kernel),
             "  (void)status;   /* reads no index: nothing to report */",
             f"  for (int64_t r = 0; r < {rows}; r++) {{",
             f"    const {t} *x = in0 + r*{cols};",
             f"    {t} *y = out0 + r*{cols};",
             "    double acc = 0, sq = 0;",
             f"    for (int64_t c = 0; c < {cols}; c++) acc += x[c];",
             f"    const double mean = acc / (double){cols};",
             f"    for (int64_t c = 0; c < {cols}; c++) {{ const double d = (double)x[c] - mean; sq += d * d; }}",
             f"    const double rstd = 1.0 / sqrt(sq / (double){cols} + {float(attrs.get('eps', 1e-5))!r});",
             f"    for (int64_t c = 0; c < {cols}; c++) {{",
             f"      {t} v = ({t})(((double)x[c] - mean) * rstd);"]
    if weight:
        lines.append(f"      v = v * {weight}[c];")
    if bias:
        lines.append(f"      v = v + {bias}[c];")
    return lines + ["      y[c] = v;", "    }", "  }"]


_CHECKS = {"nll_loss": _check_nll, "gather_backward": _check_gather_backward, "native_layer_norm": _check_layer_norm}
_RENDERERS = {"nll_loss": _render_nll, "gather_backward": _render_gather_backward,
              "native_layer_norm": _render_layer_norm}


def status_error(kernel: Kernel, status: np.ndarray) -> Exception:
    """The error the registry's forward raises for the index the kernel found out of range."""
    bad = int(status[1])
    if kernel.library == "nll_loss":
        return IndexError(f"Target {bad} is out of bounds.")
    d = kernel.library_attrs["dim"] % 2
    return IndexError(f"index {bad} is out of bounds for axis {d} with size {kernel.outputs[0].shape[d]}")
