"""A step past the run record's budget of step gradients (grad_in and grad_out null): the stepper
still lights its nodes and names its rule, and says its gradients are not in the record; the
steps before it show theirs."""
import pytest

from tests.browser.conftest import SEED, open_page

pytestmark = pytest.mark.browser


def test_a_step_without_its_gradients_says_so(page):
    open_page(page)
    page.evaluate("code => window.dagscope.setCode(code)", SEED)
    record = page.evaluate("() => window.dagscope.run()")
    graph = record["graphs"][0]
    steps = graph["steps"]
    for step in steps[1:]:
        step["grad_in"] = step["grad_out"] = None
    graph["warnings"] = [f"Steps 2-{len(steps)} of {len(steps)} are shown without their gradients: ..."]
    page.evaluate("r => window.dagscope.load(r)", record)
    page.evaluate("window.dagscope.select('step')")
    page.evaluate("window.dagscope.step(0)")
    page.wait_for_selector("#view-step-backward g.node.current")
    first = page.inner_text("#step-detail")
    assert "not in the run record" not in first and "1." in first
    page.evaluate("window.dagscope.step(1)")
    page.wait_for_selector("#step-detail .step-bare")
    assert "current" in page.get_attribute(f"#view-step-backward g.node[id='{steps[1]['node']}']", "class")
    detail = page.inner_text("#step-detail")
    assert "This step's gradients are not in the run record" in detail and steps[1]["rule"] in detail
    assert "the steps recorded before this one used them" in detail
    page.select_option("#lang", "zh-CN")
    page.wait_for_function("document.querySelector('#step-detail .step-bare')?.textContent.includes('运行记录中没有')")
