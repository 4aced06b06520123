"""Canonical text of a graph: one line per node, `%3 : f32[32,128] = relu(%2)`, ids as stored."""
from __future__ import annotations

from engine.ir.graph import CALL, COND, CONSTANT, OUTPUT, PLACEHOLDER, WHILE, Graph, Node, format_constant, format_spec


def format_attr(value) -> str:
    if isinstance(value, tuple):
        return "(" + ", ".join(format_attr(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    return repr(value)


def _lhs(node: Node) -> str:
    return ", ".join(f"{v.id} : {format_spec(v.spec)}" for v in node.outputs)


def format_node(node: Node, indent: str = "") -> list[str]:
    args = ", ".join(v.id for v in node.inputs)
    where = f"  # line {node.source_line}" if node.source_line is not None else ""
    if node.module:
        where += ("  #" if not where else ",") + f" {node.module}"
    if node.kind == PLACEHOLDER:
        return []      # shown in the signature
    if node.kind == CONSTANT:
        return [f"{indent}{_lhs(node)} = constant({format_constant(node.value)}){where}"]
    if node.kind == CALL:
        attrs = "".join(f", {k}={format_attr(v)}" for k, v in node.attrs.items())
        if not args:
            attrs = attrs[2:]
        return [f"{indent}{_lhs(node)} = {node.op}({args}{attrs}){where}"]
    if node.kind == OUTPUT:
        return [f"{indent}return ({args})"]
    lines = [f"{indent}{_lhs(node)} = {node.kind}({args}){where} {{"]
    for name, sub in node.subgraphs.items():
        lines.append(f"{indent}  {name}{_signature(sub)}:")
        for n in sub.nodes:
            lines.extend(format_node(n, indent + "    "))
    lines.append(f"{indent}}}")
    return lines


def _signature(graph: Graph) -> str:
    parts = []
    for n in graph.placeholders:
        tag = f" {n.out.name}" if n.out.name else ""
        role = " param" if n.role == "param" else ""
        parts.append(f"{n.id} : {format_spec(n.out.spec)}{role}{tag}")
    return "(" + ", ".join(parts) + ")"


def format_graph(graph: Graph) -> str:
    lines = [f"graph {graph.name}{_signature(graph)}:"]
    for n in graph.nodes:
        lines.extend(format_node(n, "  "))
    return "\n".join(lines) + "\n"
