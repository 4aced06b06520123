"""Issue 19, the Netron use: an .onnx file chosen on the page opens as the run of Dagscope's own
program (its code in the editor), its graph on Static folded by module with an unknown operator drawn
and marked; a run's exported .onnx file has a View graph action that opens it in a new tab."""
import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from tests.browser.conftest import shot

pytestmark = pytest.mark.browser


def _model(with_unknown: bool) -> bytes:
    w = numpy_helper.from_array(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4), "fc.weight")
    b = numpy_helper.from_array(np.zeros(3, np.float32), "fc.bias")
    nodes = [helper.make_node("Gemm", ["x", "fc.weight", "fc.bias"], ["h"], name="/fc/Gemm", transB=1),
             helper.make_node("Hardmax" if with_unknown else "Relu", ["h"], ["k"], name="/head/Op"),
             helper.make_node("Softmax", ["k"], ["probs"], name="/head/Softmax", axis=1)]
    graph = helper.make_graph(nodes, "net", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4])],
                              [helper.make_tensor_value_info("probs", TensorProto.FLOAT, ["batch", 3])], [w, b])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()


def _open(pg, name: str, data: bytes) -> dict:
    pg.set_input_files("#onnx-file", files=[{"name": name, "mimeType": "application/octet-stream", "buffer": data}])
    pg.wait_for_function("() => window.dagscope.state.record?.graphs?.[0]?.capture === 'onnx' "
                         "&& document.querySelector('#panel-static g.node') !== null", timeout=60000)
    return pg.evaluate("() => window.dagscope.state.record")


def test_an_onnx_file_opens_with_its_unknown_operator_marked(reused_page):
    pg = reused_page()
    record = _open(pg, "net.onnx", _model(with_unknown=True))
    assert "ds.onnx.load('net.onnx')" in pg.evaluate("() => window.dagscope.getCode()")
    assert "not run: Hardmax (Dagscope has no such operator)" in record["stdout"]
    graph = record["graphs"][0]
    unknown = next(n for n in graph["forward"]["nodes"] if n["op"] == "onnx::Hardmax")
    node = pg.locator(f"#panel-static g.node[id='{unknown['id']}']")
    assert node.count() == 1 and "#dc2626" in node.locator("path, polygon").first.get_attribute("stroke")
    assert pg.locator("#tab-static").get_attribute("aria-selected") == "true"
    shot(pg, "en_onnx_open_unknown_marked")


def test_a_known_model_runs_and_compiles_and_an_export_views_in_a_new_tab(reused_page):
    pg = reused_page()
    record = _open(pg, "net.onnx", _model(with_unknown=False))
    assert record["error"] is None and "probs on a random input: shape (1, 3)" in record["stdout"]
    assert [g["capture"] for g in record["graphs"]] == ["onnx", "compile"]
    assert record["graphs"][1]["kernels"]
    # a run that exports: its file's View graph opens the page on it in a new tab
    pg.evaluate("""code => window.dagscope.setCode(code)""",
                "import torch\nm = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Tanh())\n"
                "torch.onnx.export(m, torch.randn(2, 4), 'tiny.onnx', input_names=['x'])\n")
    ran = pg.evaluate("() => window.dagscope.run()")
    assert ran["error"] is None and [f["name"] for f in ran["files"]] == ["tiny.onnx"]
    pg.evaluate("window.dagscope.select('output')")
    with pg.context.expect_page() as opened:
        pg.locator("#panel-output .run-file button.file-action").click()
    tab = opened.value
    tab.wait_for_function("() => window.dagscope?.state?.record?.graphs?.[0]?.capture === 'onnx' "
                          "&& document.querySelector('#panel-static g.node') !== null", timeout=60000)
    assert "ds.onnx.load('tiny.onnx')" in tab.evaluate("() => window.dagscope.getCode()")
    ops = [n["op"] for n in tab.evaluate("() => window.dagscope.state.record.graphs[0].forward.nodes")]
    assert "addmm" in ops and "tanh" in ops
    shot(tab, "en_onnx_view_graph_tab")
    tab.close()
