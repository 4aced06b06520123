"""`ConcreteFunction.graph.as_graph_def()`: a GraphDef-shaped view of a tf.function's trace.

TensorFlow's is a protobuf (`graph.as_graph_def().node[i].name / .op / .input / .attr`), printed in
protobuf's text format. Dagscope's trace is its own IR (engine/ir/graph.py), whose nodes are engine
ops: one TensorFlow op may lower to a few of them (a Conv2D to two transposes around a conv2d). So
while a trace runs, every TensorFlow op notes the span of IR node ids it made (`note_op`), and the
GraphDef makes one NodeDef per op, under TensorFlow's op type and name (`add`, `MatMul`, `add_1`),
from the IR nodes of its span. Placeholders keep the argument's name, constants are `Const`
nodes, and each result gets the `Identity` node TensorFlow adds. A cond or while_loop is one node
(`If` / `While`, `Stateless...` where its branches or body have no stateful op) whose branches are not
listed (TensorFlow keeps them as functions in the graph's `library`, which this view leaves out), with
the nodes TensorFlow puts around it: a while's two counter constants, the TensorList a loop over a
tensor's rows unstacks it into, and for a loop over a dataset its ScanDataset and ReduceDataset. A
tf.print is StringFormat and PrintV2, and where the function has stateful ops and results, the results
wait on a NoOp (TensorFlow's automatic control dependencies). An IR node no TensorFlow op made keeps
its engine op's name. It describes Dagscope's graph in TensorFlow's words: a node count can differ from
TensorFlow's where Dagscope computed a value while tracing (ops on constants only) that
TensorFlow puts in the graph.
"""
from __future__ import annotations

import numpy as np

from engine.compat.tensorflow import dtypes
from engine.ir.graph import CALL, COND, CONSTANT, OUTPUT, PLACEHOLDER, WHILE
from engine.ops.registry import OPS

_DT = {"float16": "DT_HALF", "float32": "DT_FLOAT", "float64": "DT_DOUBLE", "int8": "DT_INT8", "int16": "DT_INT16",
       "int32": "DT_INT32", "int64": "DT_INT64", "uint8": "DT_UINT8", "bool": "DT_BOOL", "complex64": "DT_COMPLEX64",
       "complex128": "DT_COMPLEX128", "string": "DT_STRING"}


def note_op(tracing, start: int, tf_type: str, name: str | None) -> None:
    """Called by ops.run_op after a TensorFlow op ran while a tf.function traced: the IR ids from
    `start` to the graph's counter now were made by this op."""
    end = tracing.graph._counter.next
    if end > start:
        tracing.tf_ops.append((start, end, tf_type, name or tf_type))


def _number(node_id: str) -> int:
    return int(node_id.lstrip("%").split(".")[0])


class AttrValue:
    """One attr of a NodeDef: `type` (a dtype's DT_ name), `shape`, `b`, `s` or `tensor`."""

    def __init__(self, **field):
        (self._field, self._value), = field.items()
        setattr(self, self._field, self._value)

    def _text(self, indent: str) -> list[str]:
        f, v = self._field, self._value
        if f == "type":
            return [f"{indent}type: {v}"]
        if f == "b":
            return [f"{indent}b: {'true' if v else 'false'}"]
        if f == "s":
            return [f'{indent}s: "{v}"']
        if f == "shape":
            return [f"{indent}shape {{"] + _shape_text(v, indent + "  ") + [f"{indent}}}"]
        return [f"{indent}tensor {{"] + _tensor_text(v, indent + "  ") + [f"{indent}}}"]


def _shape_text(shape, indent: str) -> list[str]:
    lines = []
    for d in shape:
        lines += [f"{indent}dim {{", f"{indent}  size: {-1 if d is None else int(d)}", f"{indent}}}"]
    return lines


def _tensor_text(arr: np.ndarray, indent: str) -> list[str]:
    dt = _DT.get(dtypes.as_dtype(arr.dtype).name, "DT_INVALID")
    lines = [f"{indent}dtype: {dt}", f"{indent}tensor_shape {{"] + _shape_text(arr.shape, indent + "  ") + \
            [f"{indent}}}"]
    if arr.size == 1 and arr.dtype.kind in "fiub":
        field = {"f": "float_val" if arr.dtype == np.float32 else "double_val", "b": "bool_val"}.get(
            arr.dtype.kind, "int_val" if arr.dtype.itemsize <= 4 else "int64_val")
        value = arr.reshape(-1)[0].item()
        text = ("true" if value else "false") if arr.dtype.kind == "b" else f"{value:g}" if arr.dtype.kind == "f" \
            else str(value)
        lines.append(f"{indent}{field}: {text}")
    elif arr.dtype.kind in "fiubc":
        content = "".join(f"\\{b:03o}" for b in np.ascontiguousarray(arr).tobytes())
        lines.append(f'{indent}tensor_content: "{content}"')
    return lines


class NodeDef:
    def __init__(self, name: str, op: str, inputs: list[str], attr: dict):
        self.name = name
        self.op = op
        self.input = inputs
        self.device = ""
        self.attr = attr

    def _text(self) -> list[str]:
        lines = ["node {", f'  name: "{self.name}"', f'  op: "{self.op}"'] + [f'  input: "{i}"' for i in self.input]
        for key in sorted(self.attr):
            lines += ["  attr {", f'    key: "{key}"', "    value {"] + self.attr[key]._text("      ") + \
                     ["    }", "  }"]
        return lines + ["}"]

    def __str__(self) -> str:
        return "\n".join(line[2:] if line.startswith("  ") else line for line in self._text()[1:-1]) + "\n"

    def __repr__(self) -> str:
        return self.__str__()


class GraphDef:
    """`.node`: the NodeDefs in the order the trace made them; printed as protobuf text."""

    def __init__(self, nodes: list[NodeDef]):
        self.node = nodes

    def __str__(self) -> str:
        return "\n".join(line for n in self.node for line in n._text()) + "\n"

    def __repr__(self) -> str:
        return self.__str__()


def _type(value) -> AttrValue:
    return AttrValue(type=_DT.get(dtypes.as_dtype(value.spec.dtype).name, "DT_INVALID"))


class _Names:
    """TensorFlow's unique names in one graph: `add`, then `add_1`, `add_2`."""

    def __init__(self):
        self.used: dict[str, int] = {}

    def __call__(self, name: str) -> str:
        base = name
        while name in self.used:
            self.used[base] = self.used.get(base, 0) + 1
            name = f"{base}_{self.used[base]}"
        self.used[name] = 0
        return name


def as_graph_def(graph, tf_ops: list) -> GraphDef:
    """The GraphDef of `graph` (a trace's IR), `tf_ops` the spans note_op kept."""
    def span_of(node_id: str):
        n = _number(node_id)
        best = None
        for span in tf_ops:           # the innermost op whose span holds the node
            if span[0] <= n < span[1] and (best is None or span[0] >= best[0]):
                best = span
        return best

    unique = _Names()
    nodes: list[NodeDef] = []
    where: dict[str, str] = {}               # IR value id -> "name" or "name:k"
    by_span: dict[tuple, NodeDef] = {}
    span_values: dict[tuple, list] = {}

    def source(value) -> str:
        return where.get(value.id, value.id)

    stateful: list[str] = []                 # what the function must run though no result needs it (NoOp's inputs)
    cursors = {n.out.id: n for n in graph.nodes if n.kind == CALL and n.op == "iterator_start"}

    for node in graph.nodes:
        if node.kind == CALL and node.op == "iterator_start":
            continue                         # drawn with its loop, as TensorFlow's ScanDataset
        if node.kind == WHILE and any(v.id in cursors for v in node.inputs):
            # a loop over a dataset: TensorFlow's ScanDataset (the dataset through the body) and ReduceDataset
            init = [source(v) for v in node.inputs if v.id not in cursors]
            dataset = [source(c.inputs[0]) for v in node.inputs if (c := cursors.get(v.id)) is not None]
            scan = NodeDef(unique("ScanDataset"), "ScanDataset", dataset + init, {})
            reduce = NodeDef(unique("ReduceDataset"), "ReduceDataset", [scan.name] + init, {})
            nodes += [scan, reduce]
            stateful.append(reduce.name)
            for k, v in enumerate(node.outputs):
                where[v.id] = reduce.name if k == 0 else f"{reduce.name}:{k}"
            continue
        if node.kind == CALL and node.op == "print" and span_of(node.id) is None:
            # TensorFlow's tf.print: the text made by StringFormat, written by PrintV2
            text = NodeDef(unique("StringFormat"), "StringFormat", [source(v) for v in node.inputs], {})
            printed = NodeDef(unique("PrintV2"), "PrintV2", [text.name], {})
            nodes += [text, printed]
            stateful.append(printed.name)
            where[node.out.id] = printed.name
            continue
        if node.kind == PLACEHOLDER:
            name = unique(node.out.name or "Placeholder")
            attr = {"dtype": _type(node.out), "shape": AttrValue(shape=node.out.spec.shape)}
            if node.attrs.get("variant"):
                attr["dtype"] = AttrValue(type="DT_VARIANT")
            if node.role != "param":
                attr["_user_specified_name"] = AttrValue(s=node.out.name or name)
            nodes.append(NodeDef(name, "Placeholder", [], attr))
            where[node.out.id] = name
        elif node.kind == CONSTANT:
            name = unique("Const")
            nodes.append(NodeDef(name, "Const", [], {"dtype": _type(node.out),
                                                     "value": AttrValue(tensor=np.asarray(node.value))}))
            where[node.out.id] = name
        elif node.kind in (CALL, COND, WHILE):
            span = span_of(node.id) if node.kind == CALL else None
            if span is not None and span in by_span:           # another IR node of the same TensorFlow op
                nd = by_span[span]
                inside = {v.id for v in span_values[span]}
                nd.input += [source(v) for v in node.inputs if v.id not in inside and source(v) not in nd.input]
            else:
                op = span[2] if span is not None else {COND: "If", WHILE: "While"}.get(node.kind, node.op)
                label = span[3] if span is not None else {COND: "cond", WHILE: "while"}.get(node.kind, node.op)
                inputs = [source(v) for v in node.inputs]
                if node.kind == WHILE and node.attrs.get("rows_of"):
                    # a loop over a tensor's rows: TensorFlow unstacks the tensor into a TensorList first
                    rows = node.attrs["rows_of"]
                    made = [NodeDef(unique(n), op, [], {}) for n, op in (
                        ("TensorArrayV2/element_shape", "Const"), ("TensorArrayV2/num_elements", "Const"))]
                    made.append(NodeDef(unique("TensorArrayV2"), "TensorListReserve", [made[0].name, made[1].name], {}))
                    shape = NodeDef(unique("TensorArrayUnstack/TensorListFromTensor/element_shape"), "Const", [], {})
                    unstack = NodeDef(unique("TensorArrayUnstack/TensorListFromTensor"), "TensorListFromTensor",
                                      [where.get(rows, rows), shape.name], {})
                    nodes += made + [shape, unstack]
                    inputs = [unstack.name if v.id == rows else source(v) for v in node.inputs]
                if node.kind == WHILE:
                    # TensorFlow's while_v2 counts its iterations, to an optional maximum: two constants in
                    # front of the loop variables; a loop whose body has no stateful op is a StatelessWhile
                    counters = [NodeDef(unique(f"{label}/{what}"), "Const", [], {}) for what in
                                ("maximum_iterations", "loop_counter")]
                    nodes += counters
                    inputs = [counters[1].name, counters[0].name] + inputs
                op = _stateful_op(node, op)
                nd = NodeDef(unique(label), op, inputs,
                             {"T": _type(node.inputs[0] if node.inputs else node.out)} if node.outputs else {})
                nodes.append(nd)
                if op in ("While", "If", "EagerPyFunc"):
                    stateful.append(nd.name)
                if span is not None:
                    by_span[span], span_values[span] = nd, []
            if span is not None:
                span_values[span] += node.outputs
            first = 2 if node.kind == WHILE else 0           # (a while's first two results are its counters)
            for k, v in enumerate(node.outputs):
                where[v.id] = nd.name if k + first == 0 or span is not None else f"{nd.name}:{k + first}"
        elif node.kind == OUTPUT:
            for v in node.inputs:
                nodes.append(NodeDef(unique("Identity"), "Identity", [source(v)], {"T": _type(v)}))
            if node.inputs and stateful:
                # TensorFlow's automatic control dependencies: the results wait for a NoOp that waits for
                # every stateful op, so each runs even where no result needs it
                results = nodes[-len(node.inputs):]
                noop = NodeDef(unique("NoOp"), "NoOp", [f"^{name}" for name in stateful], {})
                for nd in results:
                    nd.input.append(f"^{noop.name}")
                nodes.append(noop)
    return GraphDef(nodes)


def _impure(graph) -> bool:
    return any((n.kind == CALL and OPS[n.op].extra.get("impure")) or any(_impure(g) for g in n.subgraphs.values())
               for n in graph.nodes)


def _stateful_op(node, op: str) -> str:
    """TensorFlow's cond and while ops are the Stateless kind where their branches or body hold no stateful op."""
    if node.kind in (COND, WHILE) and not any(_impure(g) for g in node.subgraphs.values()):
        return "Stateless" + op
    return op
