"""Reading ONNX files into the IR (engine/onnx/reader.py): Dagscope's own exports come back as the
same graph (node count, operators, shapes) with the same outputs; an unknown operator is kept and
marked, not refused; hostile files fail with a message naming the problem, quickly."""
from __future__ import annotations

import time
from collections import Counter

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from engine.ir.interpreter import run as run_graph
from engine.onnx.export import graph_to_model
from engine.onnx.reader import MAX_NODES, OnnxImportError, read, to_graph
from tests.engine.onnx_io.onnx_models import build, export_bytes


@pytest.fixture(scope="module")
def exported():
    return {name: (export_bytes(model, inputs), inputs, eager) for name, (model, inputs, eager) in build().items()}


def _weights(imported) -> list:
    return [imported.weights[p.out.id] for p in imported.graph.placeholders if p.role == "param"]


@pytest.mark.parametrize("name", ["mlp", "cnn_batchnorm", "transformer_block", "rnn_cell", "nanogpt_tiny", "ops_zoo"])
def test_round_trip_export_import_export(exported, name):
    data, inputs, eager = exported[name]
    imported = to_graph(read(data))
    assert not imported.unknown
    outs = run_graph(imported.graph, [x.numpy() for x in inputs] + _weights(imported))
    for got, want in zip(outs, eager):
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-5)
    params = {p.out.id: (p.out.name, imported.weights[p.out.id])
              for p in imported.graph.placeholders if p.role == "param"}
    again = graph_to_model(imported.graph, params=params, input_names=imported.input_names,
                           output_names=imported.output_names)
    first = onnx.load_from_string(data)
    assert len(again.graph.node) == len(first.graph.node)
    assert Counter(n.op_type for n in again.graph.node) == Counter(n.op_type for n in first.graph.node)
    assert [[d.dim_value for d in o.type.tensor_type.shape.dim] for o in again.graph.output] == \
        [[d.dim_value for d in o.type.tensor_type.shape.dim] for o in first.graph.output]
    assert {t.name for t in again.graph.initializer} == {t.name for t in first.graph.initializer}


def test_opset_18_reductions_round_trip():
    # (from opset 18 every Reduce* takes its axes as an input, not an attribute)
    model, inputs, eager = build()["ops_zoo"]
    imported = to_graph(read(export_bytes(model, inputs, opset_version=18)))
    assert imported.opset == 18 and not imported.unknown
    assert {"mean", "sum", "amax"} <= {n.op for n in imported.graph.nodes}
    outs = run_graph(imported.graph, [x.numpy() for x in inputs] + _weights(imported))
    for got, want in zip(outs, eager):
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-5)


def test_module_paths_come_from_node_names(exported):
    imported = to_graph(read(exported["nanogpt_tiny"][0]))
    modules = {n.module for n in imported.graph.nodes if n.module}
    assert "transformer.h.0.attn.c_attn" in modules and "lm_head" in modules


def _model(nodes, inputs, outputs, initializers=(), opset=17) -> onnx.ModelProto:
    return helper.make_model(helper.make_graph(nodes, "g", inputs, outputs, list(initializers)),
                             opset_imports=[helper.make_opsetid("", opset)])


def test_an_unknown_operator_is_kept_marked_and_its_neighbours_converted():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 4])
    w = numpy_helper.from_array(np.ones((4, 4), np.float32), "w")
    model = _model([helper.make_node("MatMul", ["x", "w"], ["h"], name="/fc/MatMul"),
                    helper.make_node("Hardmax", ["h"], ["k"], name="/Hardmax"),
                    helper.make_node("Relu", ["k"], ["y"], name="/Relu")], [x], [y], [w])
    imported = to_graph(read(model.SerializeToString()))
    ops = [n.op for n in imported.graph.nodes if n.kind == "call"]
    assert ops == ["matmul", "onnx::Hardmax", "relu"]
    opaque = next(n for n in imported.graph.nodes if n.op == "onnx::Hardmax")
    assert opaque.attrs["onnx_unknown"] and opaque.out.shape == (1, 4)
    assert imported.unknown == {"Hardmax": "Dagscope has no such operator"}
    assert imported.symbolic == ["x: batch -> 1"]


def test_shape_arithmetic_folds_at_import():
    # PyTorch's dynamic-shape exports: Reshape(x, Concat(Gather(Shape(x), 0), [-1]))
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    nodes = [helper.make_node("Shape", ["x"], ["s"]),
             helper.make_node("Gather", ["s", "zero"], ["b"], axis=0),
             helper.make_node("Unsqueeze", ["b", "axes"], ["b1"]),
             helper.make_node("Concat", ["b1", "minus_one"], ["target"], axis=0),
             helper.make_node("Reshape", ["x", "target"], ["y"])]
    inits = [numpy_helper.from_array(np.asarray(0, np.int64), "zero"),
             numpy_helper.from_array(np.asarray([0], np.int64), "axes"),
             numpy_helper.from_array(np.asarray([-1], np.int64), "minus_one")]
    imported = to_graph(read(_model(nodes, [x], [y], inits).SerializeToString()))
    assert [n.op for n in imported.graph.nodes if n.kind == "call"] == ["reshape"]
    assert imported.graph.outputs[0].shape == (2, 12)


def _refused(data: bytes, match: str) -> None:
    started = time.perf_counter()
    with pytest.raises(OnnxImportError, match=match):
        to_graph(read(data))
    assert time.perf_counter() - started < 2


def test_hostile_files_get_a_message():
    _refused(b"\x08\x07garbage\xff\xff\xff\xff", "not an ONNX file|no graph nodes")
    _refused(b"", "no graph nodes")
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])
    relu = [helper.make_node("Relu", ["x"], ["x"])]
    outside = onnx.TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[4])
    outside.data_location = TensorProto.EXTERNAL
    outside.external_data.add(key="location", value="../../../../etc/passwd")
    _refused(_model(relu, [x], [x], [outside]).SerializeToString(), "external data")
    huge = onnx.TensorProto(name="big", data_type=TensorProto.FLOAT, dims=[1 << 20, 1 << 20])   # dims, no data
    _refused(_model(relu, [x], [x], [huge]).SerializeToString(), "elements")
    huge_input = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1 << 30, 1 << 10])
    _refused(_model([helper.make_node("Relu", ["x"], ["y"])], [huge_input],
                    [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)]).SerializeToString(), "elements")
    many = [helper.make_node("Relu", [f"v{i}"], [f"v{i + 1}"]) for i in range(MAX_NODES + 1)]
    _refused(_model(many, [helper.make_tensor_value_info("v0", TensorProto.FLOAT, [1])],
                    [helper.make_tensor_value_info(f"v{MAX_NODES + 1}", TensorProto.FLOAT, [1])]).SerializeToString(),
             "nodes; Dagscope opens at most")


def _field(number: int, payload: bytes) -> bytes:
    """A length-delimited protobuf field, written by hand (onnx's helpers refuse to build this deep)."""
    def varint(n: int) -> bytes:
        out = b""
        while True:
            out += bytes([(n & 0x7F) | (0x80 if n > 0x7F else 0)])
            n >>= 7
            if not n:
                return out
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def test_deep_nesting_is_refused_by_the_parser():
    graph = b""
    for _ in range(200):      # If -> then_branch -> If ...: past protobuf's recursion limit (100)
        attribute = _field(1, b"then_branch") + _field(6, graph)          # AttributeProto.name, .g
        graph = _field(1, _field(4, b"If") + _field(5, attribute))         # GraphProto.node: op_type, attribute
    _refused(_field(7, graph), "not an ONNX file")                          # ModelProto.graph


@pytest.mark.usefixtures("kernel_cache")
def test_load_in_a_run_draws_the_graph_with_passes_and_compiles_it(run, exported, tmp_path):
    # (~2 s: the run compiles the model's C kernels)
    path = tmp_path / "cnn.onnx"
    path.write_bytes(exported["cnn_batchnorm"][0])
    record = run(f"import dagscope as ds\nmodel = ds.onnx.load({str(path)!r})\nprint(model)\n"
                 "out = ds.compile(model)(*model.random_inputs())\nprint(tuple(out.shape))\n")
    assert record["error"] is None, record["error"]
    assert record["stdout"].startswith("ONNX model cnn.onnx (opset 17): 10 nodes\n  input  input: (2, 1, 8, 8) float32")
    assert record["stdout"].endswith("(2, 3)\n")
    onnx_graph, compiled = [g for g in record["graphs"] if g.get("kind") == "static"]
    assert onnx_graph["capture"] == "onnx" and onnx_graph["title"] == "ONNX cnn.onnx"
    ops = [n["op"] for n in onnx_graph["forward"]["nodes"]]
    assert ops.count("conv2d") == 2 and "native_batch_norm" in ops
    weights = [n for n in onnx_graph["forward"]["nodes"] if n.get("label") == "1.running_var"]
    assert weights and weights[0]["value"]["shape"] == [4]          # initializer values on the inspector
    assert onnx_graph["passes"] and onnx_graph["backward"]
    assert compiled["capture"] == "compile" and compiled["kernels"]
