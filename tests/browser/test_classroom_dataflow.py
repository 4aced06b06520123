"""Issue 17 (with issue 15's data-flow graph): a run that recorded no gradient draws its data flow,
and Forward says so above the drawing in the page's language — also when it is the run's only
graph and the graph picker (whose title said it) is hidden."""
import pytest

from tests.browser.conftest import shot

pytestmark = pytest.mark.browser

NO_GRAD = """import torch
x = torch.arange(6.0).reshape(2, 3)
y = (x * 2).sum(dim=1)
print(y)
"""


@pytest.mark.parametrize("size, present, lang", [((1280, 720), True, "en"), ((1024, 768), False, "zh-CN")])
def test_a_data_flow_graph_says_what_it_is_on_forward(reused_page, size, present, lang):
    page = reused_page(f"/?lang={lang}" + ("&present=1" if present else ""), size=size)
    page.evaluate("code => window.dagscope.setCode(code)", NO_GRAD)
    record = page.evaluate("() => window.dagscope.run()")
    assert len(record["graphs"]) == 1 and record["graphs"][0]["title"].endswith("(data flow only: no gradient recorded)")
    page.evaluate("window.dagscope.select('forward')")
    page.wait_for_selector("#view-forward g.node")
    assert not page.is_visible("#graph-pick")                      # one graph: no picker to read the title in
    banner = page.locator("#view-forward .gv-banner")
    assert banner.is_visible()
    text = banner.inner_text()
    if lang == "en":
        assert "data flow only, no gradient recorded" in text and "requires grad" in text, text
    else:
        assert "仅数据流，未记录梯度" in text and "需要梯度" in text and "data flow" not in text, text
    # the banner sits above the drawing, clear of it
    canvas = page.locator("#view-forward .gv-canvas").bounding_box()
    box = banner.bounding_box()
    assert box["y"] + box["height"] <= canvas["y"] + 1
    name = f"{'present_' if present else ''}{size[0]}_dataflow"
    shot(page, name if lang == "en" else f"{lang}_{name}")
    # a graph with gradients has no such banner
    page.evaluate("code => window.dagscope.setCode(code)", "import torch\nx = torch.ones(2, requires_grad=True)\n(x * 2).sum().backward()\n")
    page.evaluate("() => window.dagscope.run()")
    page.wait_for_selector("#view-forward g.node")
    assert not banner.is_visible()
