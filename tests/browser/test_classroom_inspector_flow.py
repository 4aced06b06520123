"""Issue 17, item 9: the inspector of a backward node shows the gradients flowing through it (in,
and out to each next node, with their heat colours); a weight's value says it is the value when
the graph was recorded, and where the program stepped (opt.step()) the value after it is shown
too; a tensor wider than 8 columns wraps in captioned blocks of 8 (never cut, never scrolled
sideways); at 1024x768 no view scrolls sideways. 1440x900, 1280x720 presenting and 1024x768, in
English and 简体中文, with screenshots."""
import pytest

from tests.browser.conftest import painted, shot

pytestmark = pytest.mark.browser

STEPPED = """import torch
torch.manual_seed(0)
w = torch.nn.Parameter(torch.randn(2, 12))
x = torch.randn(12)
opt = torch.optim.SGD([w], lr=0.1)
loss = torch.tanh(w @ x).sum()
loss.backward()
opt.step()
"""
SIZES = [("1440", (1440, 900), False), ("present_1280", (1280, 720), True), ("1024", (1024, 768), False)]
WORDS = {"en": {"recorded": "Value when the graph was recorded", "after": "Value after the optimizer's step",
                "in": "Gradient flowing in", "out": "Gradients flowing out", "cols": "columns 8–11", "cols_narrow": "columns 4–7"},
         "zh-CN": {"recorded": "记录计算图时的值", "after": "优化器更新之后的值",
                   "in": "流入的梯度", "out": "流出的梯度", "cols": "第 8–11 列", "cols_narrow": "第 4–7 列"}}
NO_SIDEWAYS = """(el) => [el, ...el.querySelectorAll('*')].filter((e) => {
  const s = getComputedStyle(e);
  return e.offsetParent !== null && ['auto', 'scroll'].includes(s.overflowX) && e.scrollWidth > e.clientWidth + 1;
}).map((e) => `${e.tagName}.${e.className} ${e.scrollWidth}>${e.clientWidth}`)"""


def run_code(page, code):
    page.evaluate("code => window.dagscope.setCode(code)", code)
    return page.evaluate("() => window.dagscope.run()")


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
@pytest.mark.parametrize("name, size, present", SIZES)
def test_weights_before_and_after_the_step_and_the_gradients_through_a_backward_node(reused_page, lang, name, size, present):
    words = WORDS[lang]
    page = reused_page(f"/?lang={lang}" + ("&present=1" if present else ""), size=size)
    record = run_code(page, STEPPED)
    g = record["graphs"][0]
    w = next(n for n in g["forward"]["nodes"] if n.get("name") == "w")
    assert w["value_after"]["data"] != w["value"]["data"]
    page.evaluate("id => window.dagscope.selectNode(id)", w["id"])
    inspector = page.locator("#inspector-forward")
    inspector.locator("h4", has_text=words["after"]).wait_for()
    text = inspector.evaluate("e => e.textContent")
    assert words["recorded"] in text and words["after"] in text
    assert words["cols_narrow" if size[0] < 1200 else "cols"] in text
    # two tensors (before and after), each 2x12 as blocks of 8 and 4 columns (at 1024x768 three of
    # 4), inside the panel
    tables = inspector.locator(".tensor-table").all()
    blocks = [4, 4, 4] if size[0] < 1200 else [8, 4]
    assert [t.locator("tr").first.locator("td").count() for t in tables[:2 * len(blocks)]] == blocks * 2
    panel = inspector.bounding_box()
    for table in tables:
        box = table.bounding_box()
        assert box["x"] >= panel["x"] - 1 and box["x"] + box["width"] <= panel["x"] + panel["width"] + 1, (box, panel)
        assert float(table.evaluate("t => getComputedStyle(t).fontSize").removesuffix("px")) >= 10
    shot(page, f"{lang}_{name}_inspector_value_after")
    # the backward node of tanh: its gradient in, and out to the next node
    tanh = next(n for n in g["backward"]["nodes"] if n["op"] == "TanhBackward0")
    page.evaluate("window.dagscope.select('backward')")
    page.evaluate("id => window.dagscope.selectNode(id)", tanh["id"])
    back = page.locator("#inspector-backward")
    back.locator("h4", has_text=words["out"]).wait_for()
    text = back.evaluate("e => e.textContent")
    step = next(s for s in g["steps"] if s["node"] == tanh["id"])
    assert words["in"] in text and "→" in text
    target = next(n for n in g["backward"]["nodes"] if n["id"] == step["targets"][0])
    assert target["label"].split("\n")[0] in back.locator(".flow-out").first.inner_text()
    cells = back.locator(".tensor-table td").all()
    assert cells and all(c.evaluate("c => getComputedStyle(c).backgroundColor") != "rgba(0, 0, 0, 0)" for c in cells
                         if c.inner_text().strip() not in ("0.", "-0."))
    shot(page, f"{lang}_{name}_inspector_gradient_flow")


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_nothing_scrolls_sideways_at_1024(reused_page, lang):
    page = reused_page(f"/?lang={lang}", size=(1024, 768))
    examples = page.evaluate("fetch('/api/examples').then(r => r.json()).then(j => j.examples)")
    wide = {}
    for ex in [e for e in examples if e["id"] in ("06_trace_vs_script", "11_compile_fusion", "12_cnn")] + [{"id": "stepped", "code": STEPPED}]:
        run_code(page, ex.get("code_zh") if lang == "zh-CN" and ex.get("code_zh") else ex["code"])
        for tab in ("forward", "backward", "step", "static", "passes", "kernels", "memory", "charts", "output"):
            if not page.evaluate(f"document.querySelector('[data-tab={tab}]').offsetParent !== null"):
                continue
            page.evaluate(f"window.dagscope.select('{tab}')")
            painted(page)
            over = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
            found = page.eval_on_selector(f"[data-panel='{tab}']", NO_SIDEWAYS)
            if over > 0 or found:
                wide[f"{ex['id']}/{tab}"] = (over, found)
            if ex["id"] == "11_compile_fusion" and tab == "passes":
                shot(page, f"{lang}_1024_no_sideways_passes")
    assert not wide, wide
