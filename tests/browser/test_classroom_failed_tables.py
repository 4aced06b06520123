"""Issue 17, item 9 (two of its parts): after a syntax error Forward, Backward and Step say the
program did not run (not "no operation involved a tensor that requires grad"), a run that stops
before any graph says so, and a tensor of 8 columns is not cut off in the side panel."""
import pytest

from tests.browser.conftest import open_page, shot

pytestmark = pytest.mark.browser

WIDE = """import torch
torch.manual_seed(0)
x = torch.randn(2, 8, requires_grad=True)
y = (x * x).sum()
y.backward()
"""


def run_code(page, code):
    page.evaluate("code => window.dagscope.setCode(code)", code)
    return page.evaluate("() => window.dagscope.run()")


def test_a_syntax_error_says_the_program_did_not_run(page):
    open_page(page)
    record = run_code(page, "import torch\nx = torch.ones(2, requires_grad=True\ny = x * 2\n")
    assert record["error"]["kind"] == "syntax_error"
    for tab, view in (("forward", "#view-forward"), ("backward", "#view-backward"), ("step", "#view-step-backward")):
        page.evaluate(f"window.dagscope.select('{tab}')")
        text = page.inner_text(view)
        assert "The program did not run" in text and "SyntaxError at line 2" in text, (tab, text)
        assert "requires grad" not in text and "Run some code first" not in text
    shot(page, "syntax_error_step")
    page.select_option("#lang", "zh-CN")
    page.wait_for_function("document.querySelector('[data-tab=forward]').textContent.includes('前向图')")
    page.evaluate("window.dagscope.select('forward')")
    assert "程序没有运行" in page.inner_text("#view-forward") and "第 2 行" in page.inner_text("#view-forward")
    shot(page, "zh-CN_syntax_error_forward")


def test_a_run_stopped_before_any_graph_says_so(reused_page):
    page = reused_page()
    run_code(page, "import torch\nraise ValueError('no data')\n")
    page.evaluate("window.dagscope.select('forward')")
    text = page.inner_text("#view-forward")
    assert "stopped before drawing a graph" in text and "ValueError at line 2" in text and "no data" in text


@pytest.mark.parametrize("size, present", [((1440, 900), False), ((1280, 720), True)])
def test_eight_columns_are_not_cut_off(reused_page, size, present):
    page = reused_page("/?present=1" if present else "/", size=size)
    record = run_code(page, WIDE)
    leaf = next(n for n in record["graphs"][0]["forward"]["nodes"] if n["kind"] in ("input", "param"))
    page.click(f"#view-forward g.node[id='{leaf['id']}']")
    page.wait_for_selector("#inspector-forward .tensor-table")
    for table in page.locator("#inspector-forward .tensor-table").all():
        assert table.locator("tr").first.locator("td").count() == 8
        box = table.bounding_box()
        panel = page.locator("#inspector-forward").bounding_box()
        assert box["x"] >= panel["x"] and box["x"] + box["width"] <= panel["x"] + panel["width"], (box, panel)
        assert table.evaluate("t => t.parentElement.scrollWidth <= t.parentElement.clientWidth + 1")
    shot(page, ("present_1280" if present else "1440") + "_eight_columns")
