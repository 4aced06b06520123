"""The numpy backend: a fusion group -> generated Python that calls numpy ufuncs with `out=`.

Chosen automatically when no C compiler exists (or with DAGSCOPE_BACKEND=numpy). Every value
the group computes is written into a buffer the executor preallocated (group outputs into the
planned buffers, intermediates into scratch buffers), so a call allocates nothing for ops with a
ufunc form. Ops whose numpy form is several calls (gelu, softplus, where...) run the registry's
own forward and copy into the buffer: correct by construction, and listed in `NP_COMPOSITE`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from engine.codegen.kernel import describe, graph_value_producer, reduction_axes
from engine.ir.graph import CONSTANT, Graph
from engine.ops.registry import ELEMENTWISE, MOVEMENT, OPS, REDUCE

# op -> a numpy call writing into {out}; {0}, {1}, {2} are the operands.
NP_EXPR = {
    "add": "np.add({0}, {1}, out={out})",
    "sub": "np.subtract({0}, {1}, out={out})",
    "mul": "np.multiply({0}, {1}, out={out})",
    "div": "np.true_divide({0}, {1}, out={out})",
    "maximum": "np.maximum({0}, {1}, out={out})",
    "minimum": "np.minimum({0}, {1}, out={out})",
    "pow": "np.power({0}, {1}, out={out})",
    "neg": "np.negative({0}, out={out})",
    # in the output's float type: an integer x is converted first (its int64 loop would give 1 // x)
    "reciprocal": "np.reciprocal({0}, out={out}, dtype={out}.dtype)",
    "exp": "np.exp({0}, out={out})",
    "log": "np.log({0}, out={out})",
    "sqrt": "np.sqrt({0}, out={out})",
    "abs": "np.absolute({0}, out={out})",
    "tanh": "np.tanh({0}, out={out})",
    "sin": "np.sin({0}, out={out})",
    "floor": "np.floor({0}, out={out})",
    "ceil": "np.ceil({0}, out={out})",
    "round": "np.round({0}, out={out})",
    "remainder": "np.remainder({0}, {1}, out={out})",
    "fmod": "np.fmod({0}, {1}, out={out})",
    "floor_divide": "np.floor_divide({0}, {1}, out={out})",
    "cos": "np.cos({0}, out={out})",
    "relu": "np.maximum({0}, 0, out={out})",
    "clone": "np.copyto({out}, {0})",
    "stop_gradient": "np.copyto({out}, {0})",
    "to_dtype": "np.copyto({out}, {0}, casting='unsafe')",
    "gt": "np.greater({0}, {1}, out={out})",
    "lt": "np.less({0}, {1}, out={out})",
    "ge": "np.greater_equal({0}, {1}, out={out})",
    "le": "np.less_equal({0}, {1}, out={out})",
    "eq": "np.equal({0}, {1}, out={out})",
    "ne": "np.not_equal({0}, {1}, out={out})",
    "sign": "np.sign({0}, out={out})",
    "bitwise_and": "np.bitwise_and({0}, {1}, out={out})",
    "bitwise_or": "np.bitwise_or({0}, {1}, out={out})",
    "bitwise_xor": "np.bitwise_xor({0}, {1}, out={out})",
    "bitwise_not": "np.invert({0}, out={out})",
    "isnan": "np.isnan({0}, out={out})",
    "isinf": "np.isinf({0}, out={out})",
    "isposinf": "np.isposinf({0}, out={out})",
    "isneginf": "np.isneginf({0}, out={out})",
    "isfinite": "np.isfinite({0}, out={out})",
    "sum": "np.sum({0}, axis={axes}, keepdims=True, out={out_keep})",
    "amax": "np.amax({0}, axis={axes}, keepdims=True, out={out_keep})",
    "amin": "np.amin({0}, axis={axes}, keepdims=True, out={out_keep})",
}

# Ops computed by the registry's forward and copied into the planned buffer.
NP_COMPOSITE = {"pow_scalar", "sigmoid", "erf", "gelu", "softplus", "leaky_relu", "silu", "hardtanh", "hardswish",
                "hardsigmoid", "elu", "celu", "log_sigmoid", "mish", "div_scalar", "clamp", "clamp_tensor", "nan_to_num", "tanh_backward", "sigmoid_backward", "threshold_backward",
                "masked_fill", "where", "dropout",
                "mean", "sum_to_size", "max", "min", "argmax", "argmin", "var", "std", "logsumexp", "norm",
                "softmax", "log_softmax"}


@dataclass
class NumpyKernel:
    name: str
    source: str
    function: object
    inputs: list[str]            # value ids, in parameter order
    outputs: list[str]
    scratch: list[tuple]         # (shape, dtype) of each intermediate buffer
    node_ids: list[str]


def _literal(value) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return "np.nan" if math.isnan(value) else ("np.inf" if value > 0 else "-np.inf")
    return repr(value)


def render_group(graph: Graph, group, nodes_by_id: dict | None = None) -> NumpyKernel:
    nodes_by_id = nodes_by_id or {n.id: n for n in graph.nodes}
    nodes = [nodes_by_id[i] for i in group.node_ids]
    names: dict[str, str] = {}
    literal_dtypes: dict[str, str] = {}       # registry forwards take arrays, not Python scalars
    inputs, scratch = [], []
    for vid in group.inputs:
        producer = graph_value_producer(nodes_by_id, graph, vid)
        if producer.kind == CONSTANT and producer.value is not None and producer.value.size == 1 \
                and producer.value.ndim == 0:
            names[vid] = _literal(producer.value.item())
            literal_dtypes[vid] = producer.value.dtype.name
        else:
            names[vid] = f"in{len(inputs)}"
            inputs.append(vid)
    outputs = list(group.outputs)
    for k, vid in enumerate(outputs):
        names[vid] = f"out{k}"
    params = [names[v] for v in inputs] + [f"out{k}" for k in range(len(outputs))]
    lines = []
    n_views = 0
    for n in nodes:
        kind = OPS[n.op].kind
        args = [names[v.id] for v in n.inputs]
        arrays = [f"np.asarray({names[v.id]}, dtype={literal_dtypes[v.id]!r})" if v.id in literal_dtypes
                  else names[v.id] for v in n.inputs]
        attrs = ", ".join(f"{k}={_literal(v) if isinstance(v, float) else repr(v)}" for k, v in n.attrs.items())
        lines.append(f"    # {describe(n)}")
        if kind == MOVEMENT:           # a view: no buffer, no copy (unless it is a group output)
            view = f"w{n_views}"
            n_views += 1
            lines.append(f"    {view} = RUN[{n.op!r}]({', '.join(arrays)}{', ' + attrs if attrs else ''})")
            if n.id in names:
                lines.append(f"    np.copyto({names[n.id]}, {view})")
            else:
                names[n.id] = view
            continue
        if kind not in (ELEMENTWISE, REDUCE) and n.op not in NP_COMPOSITE:
            raise ValueError(f"{n.id}: {n.op} is not an elementwise/reduce op")
        if n.id not in names:
            names[n.id] = f"tmp{len(scratch)}"
            scratch.append((tuple(n.out.shape), np.dtype(n.out.dtype)))
            params.append(names[n.id])
        out = names[n.id]
        if n.op in NP_EXPR:
            fmt = {"out": out}
            if kind == REDUCE:
                axes = reduction_axes(n)
                keep = tuple(1 if d in axes else s for d, s in enumerate(n.inputs[0].shape))
                fmt.update(axes=axes, out_keep=f"{out}.reshape({keep})")
            lines.append("    " + NP_EXPR[n.op].format(*args, **fmt))
        else:
            lines.append(f"    np.copyto({out}, RUN[{n.op!r}]({', '.join(arrays)}"
                         f"{', ' + attrs if attrs else ''}), casting='unsafe')")
    source = f"def {group.name}({', '.join(params)}):\n" + "\n".join(lines or ["    pass"]) + "\n"
    namespace = {"np": np, "RUN": {name: op.run for name, op in OPS.items()}}
    exec(compile(source, f"<dagscope-kernel {group.name}>", "exec"), namespace)
    return NumpyKernel(group.name, source, namespace[group.name], inputs, outputs, scratch,
                       list(group.node_ids))
