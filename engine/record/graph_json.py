"""A graph as the run record's Graph JSON (docs/run-record.md): nodes with kind/shape/dtype/line/module/group
and edges, so the page draws static graphs with the same code as dynamic ones."""
from __future__ import annotations

from engine.ir.graph import CALL, COND, CONSTANT, OUTPUT, PLACEHOLDER, WHILE, Graph, Node
from engine.ir.printer import unknown_values
from engine.record.values import tensor_json

_KIND = {PLACEHOLDER: "input", CONSTANT: "const", CALL: "op", COND: "control", WHILE: "control",
         OUTPUT: "output"}


def node_kind(node: Node) -> str:
    if node.kind == PLACEHOLDER and node.role == "param":
        return "param"
    return _KIND[node.kind]


def graph_to_record(graph: Graph, values: dict | None = None, lean: bool = False) -> dict:
    """{"nodes": [...], "edges": [...]}; `values` (id -> array, e.g. from the interpreter) fills `value`.
    `lean` leaves out keys whose value is null (pass snapshots and backward graphs: a big graph is
    recorded many times, and the run record has a size budget)."""
    groups = {nid: g.name for g in graph.fusion_groups for nid in g.node_ids}
    unknown = unknown_values(graph)      # shapes not known yet (a script compiled before any call)
    nodes, edges = [], []
    for n in graph.nodes:
        spec = n.outputs[0].spec if n.outputs else None
        if n.id in unknown:
            spec = None
        value = n.value if n.kind == CONSTANT else (values or {}).get(n.id)
        rec = {"id": n.id, "op": n.op or n.kind, "label": n.label(), "kind": node_kind(n),
               "shape": list(spec.shape) if spec else None,
               "dtype": str((spec or n.outputs[0].spec).dtype) if n.outputs else None,
               "module": n.module, "line": n.source_line, "value": tensor_json(value) if value is not None else None,
               "grad": None, "group": groups.get(n.id), "name": n.outputs[0].name if n.outputs else None}
        if n.kind == CALL and n.attrs:
            rec["attrs"] = {k: _jsonable(v) for k, v in n.attrs.items()}
        if len(n.outputs) > 1:
            rec["outputs"] = [{"id": v.id, "shape": list(v.shape), "dtype": str(v.dtype)} for v in n.outputs]
        if n.subgraphs:
            rec["subgraphs"] = {k: graph_to_record(s, lean=lean) for k, s in n.subgraphs.items()}
        if lean:
            rec = {k: v for k, v in rec.items() if v is not None or k in _ALWAYS}
        nodes.append(rec)
        for v in n.inputs:
            src = v.producer.id if v.producer is not None else v.id
            edge = {"src": src, "dst": n.id, "shape": None if v.id in unknown else list(v.shape)}
            if v.id != src:
                edge["value"] = v.id       # which result of a multi-result node (cond, while_loop)
            edges.append(edge)
    return {"nodes": nodes, "edges": edges}


_ALWAYS = ("id", "op", "label", "kind", "shape", "dtype")


def _jsonable(v):
    if isinstance(v, (tuple, list)):
        return [_jsonable(x) for x in v]
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    return str(v)
