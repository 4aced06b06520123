"""Canonical text of a graph: one line per node, `%3 : f32[32,128] = relu(%2)`, ids as stored.

It sits below graph.py (whose Graph prints itself with it), so it names graph.py's Graph and Node
only in words: a `graph` here is an engine.ir.graph.Graph, a `node` its Node."""
from __future__ import annotations

import numpy as np

from engine.ir.kinds import CALL, COND, CONSTANT, OUTPUT, PLACEHOLDER
from engine.ops.dtypes import SHORT_NAMES
from engine.ops.registry import OPS, REDUCE, Spec


def format_attr(value) -> str:
    if isinstance(value, tuple):
        return "(" + ", ".join(format_attr(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    return repr(value)


def _lhs(node, unknown: set) -> str:
    return ", ".join(f"{v.id} : {format_spec(v.spec, v.id in unknown)}" for v in node.outputs)


def unknown_values(graph, seed: set = frozenset()) -> set:
    """Values whose shape follows from a placeholder of unknown shape (shown as `f32[?]`)."""
    live = set(graph.unknown_shapes) | set(seed)
    if not live:
        return live
    for n in graph.nodes:
        if n.kind not in (PLACEHOLDER, CONSTANT) and any(v.id in live for v in n.inputs):
            if n.kind == CALL and n.attrs.get("dim", 0) is None and OPS[n.op].kind == REDUCE:
                continue       # a full reduction is a scalar whatever its input's shape
            live.update(v.id for v in n.outputs)
    return live


def format_node(node, indent: str = "", unknown: set = frozenset()) -> list[str]:
    args = ", ".join(v.id for v in node.inputs)
    where = f"  # line {node.source_line}" if node.source_line is not None else ""
    if node.module:
        where += ("  #" if not where else ",") + f" {node.module}"
    if node.kind == PLACEHOLDER:
        return []      # shown in the signature
    if node.kind == CONSTANT:
        return [f"{indent}{_lhs(node, unknown)} = constant({format_constant(node.value)}){where}"]
    if node.kind == CALL:
        attrs = "".join(f", {k}={format_attr(v)}" for k, v in node.attrs.items())
        if not args:
            attrs = attrs[2:]
        return [f"{indent}{_lhs(node, unknown)} = {node.op}({args}{attrs}){where}"]
    if node.kind == OUTPUT:
        return [f"{indent}return ({args})"]
    lines = [f"{indent}{_lhs(node, unknown)} = {node.kind}({args}){where} {{"]
    for name, sub in node.subgraphs.items():
        operands = node.inputs[1:] if node.kind == COND else node.inputs
        inner = unknown_values(sub, {p.id for p, o in zip(sub.inputs, operands) if o.id in unknown})
        lines.append(f"{indent}  {name}{_signature(sub, inner)}:")
        for n in sub.nodes:
            lines.extend(format_node(n, indent + "    ", inner))
    lines.append(f"{indent}}}")
    return lines


def _signature(graph, unknown: set | None = None) -> str:
    parts = []
    unknown = unknown or set()
    for n in graph.placeholders:
        tag = f" {n.out.name}" if n.out.name else ""
        role = " param" if n.role == "param" else ""
        parts.append(f"{n.id} : {format_spec(n.out.spec, n.id in graph.unknown_shapes or n.id in unknown)}{role}{tag}")
    return "(" + ", ".join(parts) + ")"


def format_graph(graph) -> str:
    lines = [f"graph {graph.name}{_signature(graph)}:"]
    unknown = unknown_values(graph)
    for n in graph.nodes:
        lines.extend(format_node(n, "  ", unknown))
    return "\n".join(lines) + "\n"


# ---- a spec and a constant, as the printer (and the record, verify's messages) write them ----------

def format_spec(spec: Spec, unknown: bool = False) -> str:
    dt = SHORT_NAMES.get(str(np.dtype(spec.dtype)), str(spec.dtype))
    return f"{dt}[?]" if unknown else f"{dt}[{','.join(str(s) for s in spec.shape)}]"


def format_constant(value: np.ndarray) -> str:
    if value.size == 1 and value.ndim == 0:
        v = value.item()
        return repr(v)
    if value.size <= 6:
        return np.array2string(value, separator=", ")
    return f"<{value.size} values>"
