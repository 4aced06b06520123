"""torch.onnx.export (issue 19): the course's models exported from the trace pass onnx.checker, have
the operators and shapes recorded, and onnxruntime's outputs on the exported files (recorded by
record_onnx_goldens.py; live where onnxruntime is installed) are the eager model's within 1e-5."""
from __future__ import annotations

import hashlib
import io
import json
from collections import Counter
from pathlib import Path

import numpy as np
import onnx
import pytest

from engine import compat
from tests.engine.onnx_io.onnx_models import build, export_bytes

GOLDENS = json.loads((Path(__file__).parent / "onnx_goldens.json").read_text())
DYNAMIC = {"x": {0: "batch"}, "y": {0: "batch"}}
TOLERANCE = 1e-5


@pytest.fixture(scope="module")
def models():
    return build()


@pytest.fixture(scope="module")
def exported(models):
    return {name: export_bytes(model, inputs) for name, (model, inputs, _) in models.items()}


@pytest.mark.parametrize("name", sorted(GOLDENS["models"]))
def test_export_passes_the_checker_with_the_recorded_operators_and_shapes(exported, models, name):
    model = onnx.load_from_string(exported[name])
    onnx.checker.check_model(model, full_check=True)
    assert model.opset_import[0].version == 17
    golden = GOLDENS["models"][name]
    assert len(model.graph.node) == golden["nodes"]
    assert dict(Counter(n.op_type for n in model.graph.node)) == golden["operators"]
    inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True)
    shapes = [[d.dim_value for d in o.type.tensor_type.shape.dim] for o in inferred.graph.output]
    assert shapes == [o["shape"] for o in golden["outputs"]] == [list(o.shape) for o in models[name][2]]


@pytest.mark.parametrize("name", sorted(GOLDENS["models"]))
def test_recorded_onnxruntime_outputs_are_the_eager_models(exported, models, name):
    golden = GOLDENS["models"][name]
    assert hashlib.sha256(exported[name]).hexdigest() == golden["sha256"], \
        "the exported file changed: run tests/engine/onnx_io/record_onnx_goldens.py (needs onnxruntime)"
    for recorded, eager in zip(golden["outputs"], models[name][2]):
        got = np.asarray(recorded["values"], recorded["dtype"]).reshape(recorded["shape"])
        np.testing.assert_allclose(got, eager, rtol=0, atol=TOLERANCE)


@pytest.mark.parametrize("name", sorted(GOLDENS["models"]))
def test_onnxruntime_live(exported, models, name):
    ort = pytest.importorskip("onnxruntime")
    session = ort.InferenceSession(exported[name], providers=["CPUExecutionProvider"])
    inputs = models[name][1]
    outs = session.run(None, {i.name: x.numpy() for i, x in zip(session.get_inputs(), inputs)})
    for got, eager in zip(outs, models[name][2]):
        np.testing.assert_allclose(got, eager, rtol=0, atol=TOLERANCE)


@pytest.mark.parametrize("name", sorted(GOLDENS["dynamic_batch"]))
def test_dynamic_batch_runs_another_batch_size(models, name):
    model, inputs, _ = models[name]
    data = export_bytes(model, inputs, input_names=["x"], output_names=["y"], dynamic_axes=DYNAMIC)
    graph = onnx.load_from_string(data).graph
    assert graph.input[0].type.tensor_type.shape.dim[0].dim_param == "batch"
    assert graph.output[0].type.tensor_type.shape.dim[0].dim_param == "batch"
    golden = GOLDENS["dynamic_batch"][name]
    assert hashlib.sha256(data).hexdigest() == golden["sha256"]
    from tests.engine.onnx_io.onnx_models import DYNAMIC as SHAPES, dynamic_input
    x = dynamic_input(SHAPES[name])
    with compat.installed():
        import torch     # the facade: the eager model on the batch of 5 the recorded run had
        with torch.no_grad():
            eager = model(torch.tensor(x)).numpy()
    recorded = golden["outputs"][0]
    np.testing.assert_allclose(np.asarray(recorded["values"], np.float32).reshape(recorded["shape"]), eager,
                               rtol=0, atol=TOLERANCE)


def test_a_dynamic_axis_past_the_batch_is_said_to_be_fixed_inside(models):
    """Only the first axis is exported dynamic (the trace's other sizes are constants in the graph):
    naming a later one warns, naming the batch axis does not."""
    model, inputs, _ = models["mlp"]
    with pytest.warns(UserWarning, match=r"only the first \(batch\) axis as dynamic\. x\[1\] is named dynamic"):
        export_bytes(model, inputs, input_names=["x"], dynamic_axes={"x": {0: "batch", 1: "features"}})
    with pytest.warns(UserWarning, match=r"x\[1\], y\[1\] are named dynamic"):
        export_bytes(model, inputs, input_names=["x"], output_names=["y"], dynamic_axes={"x": [1], "y": [1]})
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        export_bytes(model, inputs, input_names=["x"], output_names=["y"], dynamic_axes=DYNAMIC)


def test_unsupported_operator_names_the_op():
    with compat.installed():
        import torch

        class Sorter(torch.nn.Module):
            def forward(self, x):
                return torch.argsort(x)
        with pytest.raises(torch.onnx.errors.UnsupportedOperatorError,
                           match=r"Exporting the operator 'argsort' to ONNX opset version 17 is not supported"):
            torch.onnx.export(Sorter(), torch.randn(3), io.BytesIO())


def test_external_data_and_options(tmp_path, models):
    model, inputs, eager = models["mlp"]
    with compat.installed():
        import torch
        path = tmp_path / "mlp.onnx"
        was_training = model.training
        model.train()
        torch.onnx.export(model, inputs, str(path), input_names=["features"], output_names=["log_probs"],
                          opset_version=18, external_data=True)
        assert model.training          # the mode is restored after the export (which ran in eval mode)
        model.train(was_training)
    assert (tmp_path / "mlp.onnx.data").stat().st_size >= 4 * (16 * 8 + 16 + 4 * 16 + 4)
    loaded = onnx.load(str(path))
    onnx.checker.check_model(loaded, full_check=True)
    assert loaded.opset_import[0].version == 18
    assert [i.name for i in loaded.graph.input] == ["features"]
    assert [o.name for o in loaded.graph.output] == ["log_probs"]
    assert {t.name for t in loaded.graph.initializer} == {"0.weight", "0.bias", "2.weight", "2.bias"}


def test_opset_out_of_range_is_refused(models):
    model, inputs, _ = models["mlp"]
    with pytest.raises(NotImplementedError, match="opset versions 17 to 21, not 13"):
        export_bytes(model, inputs, opset_version=13)


def test_keras_and_savedmodel_saving_name_onnx_as_the_alternative(run):
    for code in ("import keras\nm = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])\nm.save('m.keras')\n",
                 "import tensorflow as tf\ntf.saved_model.save(tf.Module(), 'out')\n"):
        error = run(code)["error"]
        assert error["kind"] == "unsupported" and "torch.onnx.export" in error["message"], error
