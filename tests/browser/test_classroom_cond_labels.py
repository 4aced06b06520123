"""Issue 17: a cond's branch sub-graphs on Static are readable at 1440x900 — the branch clusters'
titles and the nodes' labels are drawn at least MIN_PX tall on screen (measured), in English and
简体中文, on one page."""
import pytest

from tests.browser.conftest import open_page, shot

pytestmark = pytest.mark.browser
MIN_PX = 11           # the page's small print (.small) is ~11.5 px at 1440x900

MEASURE = """() => {
  const view = document.querySelector('#panel-static .static-graph, #panel-static .graphview');
  const h = (els) => els.map((e) => e.getBoundingClientRect().height).filter((x) => x > 0);
  return {
    nodes: h([...view.querySelectorAll('g.node text')]),
    clusters: h([...view.querySelectorAll('g.cluster > text')]),
    titles: [...view.querySelectorAll('g.cluster > text')].map((e) => e.textContent),
  };
}"""


def test_cond_branch_labels_are_readable_at_1440(page):
    page.set_viewport_size({"width": 1440, "height": 900})
    open_page(page)
    examples = page.evaluate("fetch('/api/examples').then(r => r.json()).then(j => j.examples)")
    tf = next(ex for ex in examples if ex["id"] == "05_tf_function_control_flow")
    for lang in ["en", "zh-CN"]:
        page.select_option("#lang", lang)
        page.wait_for_function(f"document.documentElement.lang === '{lang}'")
        page.evaluate("code => window.dagscope.setCode(code)", tf["code_zh"] if lang == "zh-CN" else tf["code"])
        page.evaluate("() => window.dagscope.run()")
        page.evaluate("window.dagscope.select('static')")
        page.wait_for_selector("#panel-static g.cluster")
        page.wait_for_timeout(300)
        m = page.evaluate(MEASURE)
        assert any("✓" in t for t in m["titles"])
        assert min(m["clusters"]) >= MIN_PX, m
        assert min(m["nodes"]) >= MIN_PX, m
        page.evaluate("document.querySelector('#panel-static g.cluster').scrollIntoView({block: 'center'})")
        shot(page, f"{lang}_1440_cond_branch_labels")
