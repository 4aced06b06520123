"""Every tab in 简体中文, on real run records: its headings, legends, buttons and table heads come
from the zh-CN catalog (no English catalog text left on the page), the gallery's concept tags are
translated, and a screenshot of each tab is written for a person to look at."""
import json
from pathlib import Path

import pytest

from tests.browser.conftest import shot
from tests.browser.test_static_views import graph, load_example

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parents[2]
EN = json.loads((ROOT / "static/i18n/en.json").read_text())
ZH = json.loads((ROOT / "static/i18n/zh-CN.json").read_text())
# English catalog phrases a zh-CN page must not show (their text up to the first placeholder; one
# word alone, "script", would also match the engine's graph titles, which stay as they are)
ENGLISH_ONLY = {v.split("{")[0].strip() for k, v in EN.items() if ZH.get(k) != v and " " in v.split("{")[0].strip()}

CODE = """import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([3.0, 4.0], requires_grad=True)
y = x * w
loss = y.sum()
loss.backward()
"""
# the page's own words, not the user's code, the engine's IR or the drawings' node labels
CHROME = "h3, h4, th, label, button, .legend, .legend-mini, .muted, .hint, .empty-state, .tab, .kv > span:first-child"


def english_left(page, tab):
    """The page's own texts on a tab's panel that still contain an English catalog phrase."""
    texts = page.eval_on_selector_all(f"[data-panel='{tab}'] :is({CHROME})", "els => els.filter(e => e.offsetParent).map(e => e.textContent.trim())")
    return sorted({t for t in texts for en in ENGLISH_ONLY if en and en in t})


def to_zh(page):
    page.select_option("#lang", "zh-CN")
    page.wait_for_function("document.documentElement.lang === 'zh-CN' && !window.dagscope.state.running")


@pytest.fixture
def zh_page(reused_page):
    """The module's page, switched to Chinese from the English it opened in (each test switches it)."""
    page = reused_page()
    to_zh(page)
    return page


def test_dag_tabs_in_chinese(zh_page):
    page = zh_page
    page.evaluate("c => window.dagscope.setCode(c)", CODE)
    record = page.evaluate("() => window.dagscope.run()")
    mul = next(n["id"] for n in record["graphs"][0]["forward"]["nodes"] if n["op"] == "mul")
    page.click(f"#view-forward g.node[id='{mul}']")
    assert english_left(page, "forward") == []
    # the graph toolbar built before the language changed speaks the new one
    assert page.get_attribute("#view-forward .gv-search", "placeholder") == ZH["graph.search"]
    tags = page.eval_on_selector_all("#gallery .tag", "els => els.map(e => e.textContent)")
    assert "自动求导" in tags and "autograd" not in tags
    shot(page, "zh-CN_forward")
    page.evaluate("window.dagscope.select('step')")
    page.wait_for_selector("#view-step-forward g.node")
    assert english_left(page, "step") == []
    shot(page, "zh-CN_step")
    # the check sees English where there is some: the same tab in English
    page.select_option("#lang", "en")
    page.wait_for_function("document.documentElement.lang === 'en' && !window.dagscope.state.running")
    assert english_left(page, "step")


@pytest.mark.parametrize("example, tab, ready", [
    ("06_trace_vs_script", "static", "#panel-static .ov-script g.node"),
    ("11_compile_fusion", "passes", "#panel-passes .pass-after g.node"),
    ("11_compile_fusion", "kernels", "#panel-kernels .kernel-graph g.node"),
    ("13_memory_reuse", "memory", "svg.lifetimes"),
])
def test_compiler_tabs_in_chinese(zh_page, example, tab, ready):
    page = zh_page
    record = load_example(page, example)
    if example == "06_trace_vs_script":
        page.evaluate("window.dagscope.select('static')")
        page.click(f"#panel-static .chip[data-g='{graph(record, capture='trace')['id']}']")
    page.evaluate(f"window.dagscope.select('{tab}')")
    page.wait_for_selector(ready)
    assert english_left(page, tab) == []
    if tab == "static":
        # the frozen branch is explained in Chinese; PyTorch's own warning is quoted beside it
        assert "冻结" in page.inner_text("#panel-static .warn-box")
    shot(page, f"zh-CN_{tab}")


def test_an_error_and_the_empty_tabs_in_chinese(zh_page):
    page = zh_page
    page.evaluate("c => window.dagscope.setCode(c)", "import torch\nx = torch.tensor([1.0])\ny = 1 / 0\n")
    page.evaluate("() => window.dagscope.run()")
    page.wait_for_selector("#panel-output .error-box, #panel-output [class*=error]")
    assert english_left(page, "output") == []
    shot(page, "zh-CN_output")
    for tab in ["forward", "static", "passes", "kernels", "memory"]:   # nothing recorded: each says why, in Chinese
        page.evaluate(f"window.dagscope.select('{tab}')")
        assert english_left(page, tab) == [], tab
    shot(page, "zh-CN_empty_memory")
