"""An ONNX file read into Dagscope's IR: `read(data)` parses it under limits, `to_graph(model)` turns
it into a Graph, one node at a time through `import_ops.IMPORTERS`.

The file is hostile (the page's ONNX import hands any upload to a sandboxed run that calls this):
a malformed protobuf, a file over MAX_NODES, dims or values over MAX_ELEMENTS, external data
(never read: a path in the file names nothing on this machine) all fail with an OnnxImportError
that says which, before anything large is allocated. An operator Dagscope does not know, or
knows without the attributes the node has, stays in the graph as an opaque node (op
"onnx::<OpType>", marked `onnx_unknown`): drawn with its inputs and outputs, never run."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import onnx
from onnx import helper, numpy_helper

from engine.errors import UnsupportedError
from engine.ir.graph import CALL, CONSTANT, PLACEHOLDER, Graph, Value
from engine.ir.interpreter import run as run_graph
from engine.onnx.import_ops import IMPORTERS, NotConverted, numpy_dtype
from engine.ops.registry import Spec

MAX_NODES = 5000                 # what the page draws (app/services/render's limit)
MAX_ELEMENTS = 1 << 26           # per value: 256 MB of float32
MAX_DIM = 1 << 31
SYMBOLIC_SIZE = 1                # a named dim ("batch") without a size: imported as 1
OPAQUE = "onnx::"
FOLD_ELEMENTS = 1 << 16          # nodes on fixed inputs this small are computed at import (shape arithmetic)


class OnnxImportError(UnsupportedError):
    """The file cannot be read as an ONNX model within the limits; the message says why."""


def read(data: bytes) -> onnx.ModelProto:
    """Parse `data` as an ONNX ModelProto (protobuf's own parser: its recursion limit bounds nesting)."""
    model = onnx.ModelProto()
    try:
        model.ParseFromString(data)
    except Exception as exc:  # noqa: BLE001 - protobuf's DecodeError and its C++ parser's errors
        raise OnnxImportError(f"this is not an ONNX file: its protobuf does not parse ({type(exc).__name__})") from None
    if not model.HasField("graph") or not model.graph.node:
        raise OnnxImportError("this is not an ONNX model: it has no graph nodes")
    if len(model.graph.node) > MAX_NODES:
        raise OnnxImportError(f"the graph has {len(model.graph.node)} nodes; Dagscope opens at most {MAX_NODES}")
    for t in model.graph.initializer:
        if t.data_location == onnx.TensorProto.EXTERNAL:
            raise OnnxImportError(f"initializer {t.name!r} is stored as external data beside the file, which an "
                                  "upload does not bring: save the model with its weights inside "
                                  "(onnx.save_model(model, path, save_as_external_data=False))")
        _check_elements(list(t.dims), f"initializer {t.name!r}")
    return model


def _check_elements(dims: list[int], what: str) -> None:
    if any(d < 0 or d > MAX_DIM for d in dims):
        raise OnnxImportError(f"{what} has a dim outside 0..2**31: {dims}")
    if int(np.prod([float(d) for d in dims])) > MAX_ELEMENTS:
        raise OnnxImportError(f"{what} has {int(np.prod([float(d) for d in dims])):,} elements; Dagscope opens "
                              f"values of at most {MAX_ELEMENTS:,}")


@dataclass
class Imported:
    """What to_graph made: the Graph, its weights (placeholder value id -> array), the file's input
    and output names, the operators kept opaque (op type -> why), the named dims set to 1."""
    graph: Graph
    weights: dict
    input_names: list
    output_names: list
    unknown: dict = field(default_factory=dict)
    symbolic: list = field(default_factory=list)
    opset: int = 0


class Context:
    """What an import builder sees: the graph it writes into and what the file fixes."""

    def __init__(self, g: Graph, opset: int, arrays: dict, weights_of: dict, node_inputs: list):
        self.g, self.opset = g, opset
        self._arrays = arrays               # ONNX name -> array the file fixes (initializers, folded constants)
        self._weights = weights_of          # ONNX name of a float initializer -> True
        self._inputs = node_inputs

    def const(self, i: int):
        name = self._inputs[i] if i < len(self._inputs) else ""
        return self._arrays.get(name) if name else None

    def is_weight(self, i: int) -> bool:
        return self._inputs[i] in self._weights

    @staticmethod
    def attribute_value(node) -> np.ndarray:
        a = node.attribute[0]
        if a.type == onnx.AttributeProto.TENSOR:
            _check_elements(list(a.t.dims), f"the constant of {node.name or node.op_type}")
            return numpy_helper.to_array(a.t)
        value = helper.get_attribute_value(a)
        return np.asarray(value, np.float32 if a.type in (onnx.AttributeProto.FLOAT, onnx.AttributeProto.FLOATS)
                          else np.int64)

    @staticmethod
    def check_elements(shape) -> None:
        _check_elements([int(s) for s in shape], "a constant")


def _module(node_name: str) -> str | None:
    """'/h.0/attn/MatMul_3' (PyTorch's exporters name nodes by module path) -> 'h.0.attn'."""
    parts = [p for p in node_name.split("/") if p]
    return ".".join(parts[:-1]) or None


def _spec_of(value_info, symbolic: list | None) -> Spec | None:
    t = value_info.type.tensor_type
    if not t.elem_type or not t.HasField("shape"):
        return None
    dims = []
    for d in t.shape.dim:
        if d.HasField("dim_value") and d.dim_value > 0:
            dims.append(int(d.dim_value))
        else:
            dims.append(SYMBOLIC_SIZE)
            if symbolic is not None:        # (noted for the graph's inputs, where the size is chosen)
                symbolic.append(f"{value_info.name}: {d.dim_param or '?'} -> {SYMBOLIC_SIZE}")
    try:
        dtype = numpy_dtype(t.elem_type)
    except Exception:  # noqa: BLE001 - an element type numpy has no dtype for (bfloat16, float8 ...)
        return None
    _check_elements(dims, f"value {value_info.name!r}")
    return Spec(tuple(dims), dtype)


def to_graph(model: onnx.ModelProto, name: str = "onnx") -> Imported:
    opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), 0)
    try:
        inferred = onnx.shape_inference.infer_shapes(model, data_prop=True).graph
    except Exception:  # noqa: BLE001 - shapes of opaque nodes are then unknown (drawn without them)
        inferred = model.graph
    symbolic: list = []
    declared = {vi.name: vi for vi in list(inferred.value_info) + list(inferred.output) + list(inferred.input)}
    g = Graph(name)
    values: dict[str, Value] = {}
    arrays: dict[str, np.ndarray] = {}
    weights: dict[str, np.ndarray] = {}
    initializers = {t.name: t for t in model.graph.initializer}
    float_inits = {n for n, t in initializers.items() if numpy_dtype(t.data_type).kind == "f"}
    for t in model.graph.initializer:
        arrays[t.name] = numpy_helper.to_array(t)
    input_names = []
    for vi in model.graph.input:
        if vi.name in initializers:
            continue
        spec = _spec_of(vi, symbolic)
        if spec is None:
            raise OnnxImportError(f"input {vi.name!r} has no tensor type and shape Dagscope can read")
        values[vi.name] = g.placeholder(vi.name, spec.shape, spec.dtype)
        input_names.append(vi.name)

    def value(name: str) -> Value | None:
        if not name:
            return None
        if name not in values:
            if name in float_inits:          # a weight: an input holding the file's values
                v = g.placeholder(name, arrays[name].shape, arrays[name].dtype, role="param")
                weights[v.id] = arrays[name]
            elif name in arrays:             # integer initializers (shapes, indices): constants
                v = g.constant(arrays[name], name=name)
            else:
                raise OnnxImportError(f"value {name!r} is read before any node makes it (the nodes are not in "
                                      "topological order, or an input is missing)")
            values[name] = v
        return values[name]

    unknown: dict[str, str] = {}
    for node in model.graph.node:
        g.current_module = _module(node.name)
        xs = [value(n) for n in node.input]
        attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute
                 if a.type not in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS)}
        builder = IMPORTERS.get(node.op_type) if node.domain in ("", "ai.onnx") else None
        outs, why = None, None
        if builder is None:
            why = "Dagscope has no such operator" if node.domain in ("", "ai.onnx") else f"domain {node.domain}"
        elif any(a.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS) for a in node.attribute):
            why = "it holds sub-graphs"
        elif any(x is not None and x.producer is not None and (x.producer.op or "").startswith(OPAQUE)
                 and not x.producer.attrs["shape_known"][x.producer.outputs.index(x)] for x in xs):
            why = "an input's shape is unknown (it comes from an operator Dagscope does not run)"
        else:
            try:
                outs = _build(builder, g, opset, arrays, float_inits, node, xs, attrs)
            except NotConverted as exc:
                why = str(exc)
            except (ValueError, TypeError, IndexError, KeyError, RuntimeError, AssertionError, ZeroDivisionError,
                    NotImplementedError, OverflowError) as exc:
                if isinstance(exc, OnnxImportError):
                    raise
                why = f"its inputs do not fit it ({type(exc).__name__}: {exc})"
        if outs is None:
            unknown.setdefault(node.op_type, why)
            outs = _opaque(g, node, xs, declared, why)
        for out_name, v in zip(node.output, outs):
            if out_name:
                _check_elements(list(v.shape), f"value {out_name!r}")
                values[out_name] = v
                if v.producer is not None and v.producer.kind == CONSTANT:
                    arrays[out_name] = v.producer.value
    g.current_module = None
    output_names = [o.name for o in model.graph.output]
    missing = [n for n in output_names if n not in values]
    if missing:
        raise OnnxImportError(f"no node makes the graph's output {missing[0]!r}")
    g.output([values[n] for n in output_names])
    _drop_unused(g)
    weights = {k: v for k, v in weights.items() if any(p.out.id == k for p in g.placeholders)}
    return Imported(g, weights, input_names, output_names, unknown, symbolic, opset)


def _build(builder, g: Graph, opset: int, arrays: dict, float_inits: set, node, xs, attrs) -> list[Value]:
    """The node's outputs; where the file fixes every input, computed now (shape arithmetic) as constants."""
    fixed = [n for n in node.input if n]
    if (fixed and all(n in arrays and n not in float_inits for n in fixed)     # (weights stay inputs)
            and sum(arrays[n].size for n in fixed) <= FOLD_ELEMENTS):
        scratch = Graph("fold")
        sx = [None if x is None else scratch.constant(arrays[n]) for n, x in zip(node.input, xs)]
        outs = builder(Context(scratch, opset, arrays, set(), list(node.input)), node, sx, attrs)
        scratch.output(outs)
        return [g.constant(a) for a in run_graph(scratch, [])]
    return builder(Context(g, opset, arrays, float_inits, list(node.input)), node, xs, attrs)


def _opaque(g: Graph, node, xs, declared: dict, why: str) -> list[Value]:
    """The node kept as it is in the file: a call of op 'onnx::OpType' with the shapes the file declares."""
    specs = []
    for out_name in node.output:
        spec = _spec_of(declared[out_name], None) if out_name in declared else None
        specs.append(spec or Spec((), np.dtype(np.float32)))
    attrs = {"onnx_unknown": True, "why": why,
             "shape_known": [out_name in declared for out_name in node.output]}
    made = g._node(CALL, specs, op=f"{OPAQUE}{node.op_type}", inputs=[x for x in xs if x is not None], attrs=attrs)
    return list(made.outputs)


def _drop_unused(g: Graph) -> None:
    """Constants and weights nothing reads (a Reshape's shape, an unused initializer)."""
    used = {v.id for n in g.nodes for v in n.inputs} | {v.id for v in g.outputs}
    changed = True
    while changed:
        keep = [n for n in g.nodes if n.kind not in (CONSTANT, PLACEHOLDER) or n.out.id in used
                or (n.kind == PLACEHOLDER and n.role == "input")]
        changed = len(keep) != len(g.nodes)
        g.nodes[:] = keep
        used = {v.id for n in g.nodes for v in n.inputs} | {v.id for v in g.outputs}
