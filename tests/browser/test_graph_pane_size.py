"""A drawing is fitted to its pane by the size the pane's ResizeObserver last saw (graphview.js):
a visible view's new drawing is not read back from the layout as it is inserted (the browser lays
it out once, in the next frame), and a view drawn in a hidden tab, or a pane resized, is fitted
when the observer sees its size. One test, one page of its own (a module's reused_page)."""
import pytest

from tests.browser.conftest import painted

pytestmark = pytest.mark.browser

# the shown drawing's viewBox and the pane's shape: fit() gives the viewBox the pane's proportions
FITTED = """(view) => {
    const [, , w, h] = document.querySelector(`${view} svg`).getAttribute('viewBox').split(' ').map(Number);
    const pane = document.querySelector(`${view} .gv-canvas`).getBoundingClientRect();
    return {box: w / h, pane: pane.width / pane.height};
}"""


def test_a_drawing_is_fitted_by_the_observed_pane_size(reused_page):
    page = reused_page()
    reads = page.evaluate("""async () => {
        const rec = window.dagscope.state.record;
        const real = Element.prototype.getBoundingClientRect;
        const reads = {forward: 0, backward: 0};
        Element.prototype.getBoundingClientRect = function () {
            const pane = this.classList?.contains('gv-canvas') && this.closest('#view-forward, #view-backward');
            if (pane) reads[pane.id.slice(5)] += 1;
            return real.call(this);
        };
        try {
            await window.dagscope.load(rec);
        } finally {
            Element.prototype.getBoundingClientRect = real;
        }
        return reads;
    }""")
    assert reads["forward"] == 0, reads          # the shown view's size came from its observer
    painted(page)
    fwd = page.evaluate(FITTED, "#view-forward")
    assert fwd["box"] == pytest.approx(fwd["pane"], rel=0.01)
    page.evaluate("window.dagscope.select('backward')")    # drawn while hidden: fitted once shown
    painted(page)
    bwd = page.evaluate(FITTED, "#view-backward")
    assert bwd["box"] == pytest.approx(bwd["pane"], rel=0.01)
    page.set_viewport_size({"width": 1100, "height": 800})   # a resized pane is fitted again
    painted(page)
    resized = page.evaluate(FITTED, "#view-backward")
    assert resized["pane"] != pytest.approx(bwd["pane"], rel=0.01)
    assert resized["box"] == pytest.approx(resized["pane"], rel=0.01)
