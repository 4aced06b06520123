"""POST /api/onnx/open (issue 19): an ONNX file opens as a sandboxed run of Dagscope's own program
(dagscope.onnx.load), so a hostile file costs one run's limits and comes back as a run's error."""
from __future__ import annotations

import base64
import time

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.routes.onnx_import import MAX_FILE_BYTES, file_name
import numpy as np
from onnx import TensorProto, helper, numpy_helper


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("DAGSCOPE_DATA_DIR", str(tmp_path_factory.mktemp("data")))
    with TestClient(create_app()) as c:
        yield c
    mp.undo()


def _open(client, data: bytes, name="cnn.onnx"):
    return client.post("/api/onnx/open", json={"name": name, "data": base64.b64encode(data).decode()})


def _mlp() -> bytes:
    """Linear + ReLU as PyTorch's exporter writes it (Gemm with transB), by hand."""
    w = numpy_helper.from_array(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4), "fc.weight")
    b = numpy_helper.from_array(np.zeros(3, np.float32), "fc.bias")
    graph = helper.make_graph(
        [helper.make_node("Gemm", ["x", "fc.weight", "fc.bias"], ["h"], name="/fc/Gemm", transB=1),
         helper.make_node("Relu", ["h"], ["output"], name="/relu/Relu")], "mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, ["batch", 3])], [w, b])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()


def test_a_model_opens_drawn_run_and_compiled(client):
    # (~3-15 s: one sandboxed run that compiles the model's C kernels)
    r = _open(client, _mlp(), name="mlp.onnx")
    assert r.status_code == 200
    body = r.json()
    record = body["record"]
    assert record["ok"], record["error"]
    assert body["name"] == "mlp.onnx" and "ds.onnx.load('mlp.onnx')" in body["code"]
    assert "named dim x: batch -> 1" in record["stdout"]
    assert "output on a random input: shape (1, 3), dtype torch.float32" in record["stdout"]
    captures = [g["capture"] for g in record["graphs"] if g["kind"] == "static"]
    assert captures == ["onnx", "compile"]
    assert record["graphs"][0]["passes"] and record["graphs"][1]["kernels"]


def test_a_hostile_file_is_a_runs_error_in_bounded_time(client):
    started = time.monotonic()
    r = _open(client, b"\x0a\xff\xff\xff\xff\x0f" + b"\x00" * 64)
    record = r.json()["record"]
    assert r.status_code == 200 and record["error"]["kind"] == "unsupported"
    assert "not an ONNX file" in record["error"]["message"]
    assert time.monotonic() - started < 15          # (a sandboxed run: its start-up on a loaded machine)


def test_refusals_before_any_run(client):
    assert client.post("/api/onnx/open", json={"data": "not base64!"}).status_code == 422
    assert client.post("/api/onnx/open", json={"data": ""}).status_code == 422
    assert client.post("/api/onnx/open", json={"name": "x.onnx"}).status_code == 422
    too_big = base64.b64encode(b"\0" * (MAX_FILE_BYTES + 1)).decode()
    assert client.post("/api/onnx/open", json={"data": too_big}).status_code in (413, 422)
    assert client.post("/api/onnx/open", json={"file_id": "no-such-file"}).status_code == 404


def test_names_the_run_sees():
    assert file_name("../../etc/passwd") == "passwd.onnx"
    assert file_name("my model (1).onnx") == "my_model__1_.onnx"
    assert file_name(".hidden.onnx") == "hidden.onnx"
    assert file_name("") == "model.onnx"
