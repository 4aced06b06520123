"""A captured Graph written as an ONNX model: placeholders become the graph's inputs (or, for a
module's parameters and buffers, initializers holding their values), constants become
initializers, and each call node is written by its op's builder in `export_ops.EXPORTERS`.

The model is checked with `onnx.checker` (full check: types and shapes inferred) before it is
returned: a model the checker refuses is a bug of the exporter, never a file handed to the user."""
from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np
import onnx
from onnx import helper, numpy_helper

from engine.errors import UnsupportedError
from engine.ir.graph import CALL, CONSTANT, PLACEHOLDER, Graph, Node, Value
from engine.onnx.export_ops import EXPORTERS, onnx_dtype

DEFAULT_OPSET = 17
MIN_OPSET, MAX_OPSET = 17, 21           # the opsets export_ops' builders are written for
PRODUCER = "dagscope"


class UnsupportedOperatorError(UnsupportedError):
    """An IR op with no ONNX builder (PyTorch's exporter raises torch.onnx.errors.UnsupportedOperatorError)."""


@dataclass
class Emitter:
    """What a builder writes into: ONNX nodes and initializers, and the name of every IR value."""
    opset: int
    dynamic: bool = False                   # dynamic_axes were asked for (Reshape copies leading dims)
    nodes: list = field(default_factory=list)
    initializers: list = field(default_factory=list)
    names: dict = field(default_factory=dict)       # IR value id -> ONNX name
    _taken: set = field(default_factory=set)
    node: Node | None = None                         # the IR node being written (names its ONNX nodes)

    def unique(self, hint: str) -> str:
        name, i = hint, 1
        while name in self._taken:
            name, i = f"{hint}_{i}", i + 1
        self._taken.add(name)
        return name

    def name(self, value: Value) -> str:
        return self.names[value.id]

    def out(self, value: Value) -> str:
        """The ONNX name of an IR node's output (named once, when first asked for)."""
        if value.id not in self.names:
            self.names[value.id] = self.unique(f"{self.node.op}_{value.id.lstrip('%')}" if self.node else value.id)
        return self.names[value.id]

    def const(self, array, hint: str = "const") -> str:
        """An initializer holding `array`; its name."""
        name = self.unique(hint)
        self.initializers.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def ints(self, values, hint: str = "ints") -> str:
        return self.const(np.asarray(list(values), np.int64), hint)

    def emit(self, op_type: str, inputs: list[str], outputs: list[str] | None = None, **attrs) -> str:
        """One ONNX node; returns its (first) output's name (a fresh one unless `outputs` is given)."""
        base = self.node
        if outputs is None:
            outputs = [self.unique(f"{op_type}_{base.id.lstrip('%') if base else 'x'}")]
        where = "/" + base.module.replace(".", "/") + "/" if base is not None and base.module else "/"
        node = helper.make_node(op_type, inputs, outputs, name=self.unique(f"{where}{op_type}_{len(self.nodes)}"),
                                **{k: v for k, v in attrs.items() if v is not None})
        if base is not None and base.source_line is not None:
            node.doc_string = f"line {base.source_line}"
        self.nodes.append(node)
        return outputs[0]

    def cast(self, name: str, from_dtype, to_dtype) -> str:
        if np.dtype(from_dtype) == np.dtype(to_dtype):
            return name
        return self.emit("Cast", [name], to=onnx_dtype(to_dtype))


def _dims(shape, axes_names: dict | None) -> list:
    return [axes_names[i] if axes_names and i in axes_names else int(s) for i, s in enumerate(shape)]


def _axes_names(name: str, spec) -> dict:
    """dynamic_axes' entry for one input or output: {axis: name} or [axes] (named as PyTorch names them)."""
    if isinstance(spec, dict):
        return {int(a): str(n) for a, n in spec.items()}
    return {int(a): f"{name}_dynamic_axes_{i + 1}" for i, a in enumerate(spec)}


def graph_to_model(graph: Graph, *, params: dict[str, tuple[str, np.ndarray]], input_names: list[str],
                   output_names: list[str], dynamic_axes: dict | None = None, opset: int = DEFAULT_OPSET,
                   doc: str = "") -> onnx.ModelProto:
    """`graph` as an ONNX model. `params`: placeholder value id -> (initializer name, its value) for
    the placeholders that are weights; the other placeholders are the model's inputs, named by
    `input_names` in order; the graph's outputs are named by `output_names`."""
    if not MIN_OPSET <= opset <= MAX_OPSET:
        raise UnsupportedError(f"Dagscope exports ONNX opset versions {MIN_OPSET} to {MAX_OPSET}, not {opset}")
    dynamic_axes = {str(k): _axes_names(str(k), v) for k, v in (dynamic_axes or {}).items()}
    em = Emitter(opset, dynamic=bool(dynamic_axes))
    inputs, unknown = [], []
    for node in graph.nodes:
        if node.kind == CALL and node.op not in EXPORTERS:
            unknown.append(node)
    if unknown:
        op = unknown[0].op
        where = f" (line {unknown[0].source_line})" if unknown[0].source_line else ""
        raise UnsupportedOperatorError(
            f"Exporting the operator '{op}'{where} to ONNX opset version {opset} is not supported. "
            f"Dagscope's ONNX exporter writes: {', '.join(sorted(EXPORTERS))}")
    # the graph's outputs take their names from the node that makes them, where that node is a call
    # that makes no other output of the graph (otherwise an Identity gives the second name)
    out_names, named = {}, set()
    for value, name in zip(graph.outputs, output_names):
        if value.producer is not None and value.producer.kind == CALL and value.id not in named:
            out_names[value.id] = name
            named.add(value.id)
    em._taken.update(output_names)
    arg_index = 0
    for node in graph.nodes:
        em.node = node if node.kind == CALL else None
        if node.kind == PLACEHOLDER:
            v = node.out
            if v.id in params:
                pname, arr = params[v.id]
                em.names[v.id] = em.unique(pname)
                em.initializers.append(numpy_helper.from_array(np.ascontiguousarray(arr), em.names[v.id]))
            else:
                name = input_names[arg_index] if arg_index < len(input_names) else (v.name or f"input_{arg_index}")
                arg_index += 1
                em.names[v.id] = name
                em._taken.add(name)
                inputs.append(helper.make_tensor_value_info(name, onnx_dtype(v.dtype),
                                                            _dims(v.shape, dynamic_axes.get(name))))
        elif node.kind == CONSTANT:
            em.names[node.out.id] = em.const(node.value, node.out.name or f"const_{node.id.lstrip('%')}")
        elif node.kind == CALL:
            if node.out.id in out_names:
                em.names[node.out.id] = out_names[node.out.id]
            EXPORTERS[node.op](em, node)
        elif node.kind not in ("output",):
            raise UnsupportedOperatorError(f"Exporting a graph with {node.kind} (control flow) to ONNX is not "
                                           "supported by Dagscope: trace the model (the branch taken is recorded)")
    em.node = None
    outputs = []
    for value, name in zip(graph.outputs, output_names):
        if em.names[value.id] != name:
            em.emit("Identity", [em.names[value.id]], [name])
        outputs.append(helper.make_tensor_value_info(name, onnx_dtype(value.dtype),
                                                     _dims(value.shape, dynamic_axes.get(name))))
    _drop_unused(em, output_names)
    g = helper.make_graph(em.nodes, graph.name or "graph", inputs, outputs, em.initializers)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], producer_name=PRODUCER,
                              doc_string=doc)
    model.ir_version = min(model.ir_version, 9)        # what onnxruntime 1.16+ reads
    onnx.checker.check_model(model, full_check=True)
    return model


def _drop_unused(em: Emitter, output_names: list[str]) -> None:
    """Nodes and initializers nothing reads (a weight's Transpose folded into Gemm's transB, an unused
    parameter), dropped as PyTorch's exporter drops them."""
    needed = set(output_names)
    kept = []
    for node in reversed(em.nodes):
        if any(o in needed for o in node.output):
            kept.append(node)
            needed.update(i for i in node.input if i)
    em.nodes = kept[::-1]
    em.initializers = [t for t in em.initializers if t.name in needed]


def save(model: onnx.ModelProto, f, external_data: bool = False) -> None:
    """Writes `model` to a path or a binary file object; with `external_data` its initializers go into
    `<file>.data` beside it (onnx's external data format), as the user asked."""
    if hasattr(f, "write"):
        if external_data:
            raise UnsupportedError("torch.onnx.export: external data needs a file path, not a file object")
        f.write(model.SerializeToString())
        return
    path = os.fspath(f)
    if external_data:
        onnx.save_model(model, path, save_as_external_data=True, all_tensors_to_one_file=True,
                        location=os.path.basename(path) + ".data", size_threshold=0)
    else:
        onnx.save_model(model, path)
