"""Step's two panes keep the current node wholly in view, presenting at 1280x720 (issue 17, item 2's
projected graphs): the pane is fitted again when it is resized (the step's detail beside it grows
and shrinks as the step changes) and when its drawing arrives after the step was shown, and each
fit used to centre the whole graph, leaving the current node cut at the pane's edge
(static/js/graphview.js refit). The seed MLP's first steps, on the session's presenting page."""
import pytest

from tests.browser.conftest import ROOT, painted

pytestmark = pytest.mark.browser

IN_VIEW_JS = """pane => { const c = document.querySelector(pane + ' .gv-canvas').getBoundingClientRect();
    const g = document.querySelector(pane + ' g.node.current').getBoundingClientRect();
    return {inside: g.left >= c.left - 1 && g.right <= c.right + 1 && g.top >= c.top - 1 && g.bottom <= c.bottom + 1,
            node: [g.left, g.right, g.top, g.bottom], pane: [c.left, c.right, c.top, c.bottom]}; }"""


def test_the_current_node_is_wholly_in_both_panes_at_each_step(reused_page):
    page = reused_page("/?present=1", size=(1280, 720))
    page.evaluate("code => window.dagscope.setCode(code)", (ROOT / "examples" / "10_mlp_training_step.py").read_text())
    record = page.evaluate("() => window.dagscope.run()")
    assert record["ok"], record["error"]
    page.evaluate("window.dagscope.select('step')")
    page.wait_for_selector("#view-step-backward g.node.current")
    cut = {}
    for n in range(4):
        page.evaluate("n => window.dagscope.step(n)", n)
        painted(page)
        for pane in ("#view-step-backward", "#view-step-forward"):
            where = page.evaluate(IN_VIEW_JS, pane)
            if not where["inside"]:
                cut[f"step {n + 1} {pane}"] = where
    assert not cut, cut
