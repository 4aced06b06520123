"""Issue 17, Compare after a reload: the run shown before the tab was reloaded is kept in the tab's
sessionStorage (static/js/keptrun.js: its code, output and forward graphs with their nodes'
statistics), so after the reload Compare sets it beside the run the page makes then; a run too
large to keep is named as the reason Compare has nothing (English and 简体中文, presenting at
1280x720)."""
import pytest

from tests.browser.conftest import open_page, painted, shot
from tests.browser.test_classroom_compare import BEFORE

pytestmark = pytest.mark.browser


def test_compare_keeps_the_run_before_a_reload(page):
    page.set_viewport_size({"width": 1280, "height": 720})
    open_page(page, "/?lang=en&present=1")
    page.evaluate("code => window.dagscope.setCode(code)", BEFORE)
    page.evaluate("() => window.dagscope.run()")
    page.reload()          # (one page load: the fresh page runs the first example again, as before)
    page.wait_for_function("document.body.classList.contains('ready') && !window.dagscope.state.running",
                           timeout=30000)
    assert page.evaluate("window.dagscope.getCode()") != BEFORE
    page.evaluate("window.dagscope.select('compare')")
    page.wait_for_selector("#panel-compare .compare-before svg")
    page.wait_for_selector("#panel-compare .compare-after svg")
    assert "previous run (before the reload)" in page.inner_text("#panel-compare").lower()   # (h4s are upper-case)
    # the kept run: its code, its printed numbers and its graph's nodes (Linear -> ReLU -> Linear)
    out = page.inner_text("#panel-compare .out-diff")
    assert "loss" in out and "done" in out
    before_nodes = page.evaluate("[...document.querySelectorAll('.compare-before g.node')].map(g => g.textContent)")
    assert any("relu" in t for t in before_nodes)
    painted(page)
    shot(page, "en_present_1280_compare_after_reload")
    page.select_option("#lang", "zh-CN")
    page.wait_for_function("document.documentElement.lang === 'zh-CN'")
    page.evaluate("window.dagscope.select('compare')")
    page.wait_for_selector("#panel-compare .compare-before svg")
    assert "上一次运行（重新加载之前）" in page.inner_text("#panel-compare")
    painted(page)
    shot(page, "zh-CN_present_1280_compare_after_reload")


def test_a_run_too_large_to_keep_is_said_so(reused_page):
    page = reused_page("/?lang=en")
    said = page.evaluate("""async () => {
        const kept = await import('/static/js/keptrun.js');
        const { ComparePanel } = await import('/static/js/compare.js');
        const huge = {stdout: 'x'.repeat(kept.MAX_KEPT_CHARS + 10), graphs: []};
        kept.keepRun('print(1)', huge);
        const back = kept.keptRun();
        const el = document.createElement('div');
        await new ComparePanel(el).show(back, {record: {stdout: '', graphs: []}, code: ''}, null);
        kept.keepRun('print(2)', {stdout: '2\\n', graphs: [{id: 'g1', title: 't', forward: {nodes: [
            {id: 'n1', op: 'mul', kind: 'op', value: {stats: {mean: 1}, data: [1, 2], preview: [1]}, grad: {stats: {}}}],
            edges: []}, backward: {nodes: [{id: 'b1'}], edges: []}, steps: [{}], trajectory: {}}]});
        const small = kept.keptRun();
        sessionStorage.removeItem('dagscope.comparedRun');
        return {back, text: el.textContent, small};
    }""")
    assert said["back"] == {"tooLarge": True}
    assert "too large to keep in this tab" in said["text"]
    g = said["small"]["record"]["graphs"][0]
    assert said["small"]["code"] == "print(2)" and said["small"]["record"]["stdout"] == "2\n"
    assert g["forward"]["nodes"][0]["value"] == {"stats": {"mean": 1}} and g["forward"]["nodes"][0]["grad"] is None
    assert "backward" not in g and "steps" not in g and "trajectory" not in g
