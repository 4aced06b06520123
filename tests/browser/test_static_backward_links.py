"""A captured graph's backward is linked to its forward as an eager one is: hovering a backward node
lights the forward node it differentiates, and the stepper walks the static backward one vjp at a
time (all the IR nodes of that vjp lit, with the forward node), on a real compiled training step."""
import pytest

from tests.browser.conftest import shot
from tests.browser.test_identity import lit, switch
from tests.browser.test_static_views import graph, load_example

pytestmark = pytest.mark.browser


def classed(page, view, cls):
    return set(page.eval_on_selector_all(f"{view} g.node.{cls}", "gs => gs.map(g => g.id)"))


def open_compiled_step(page):
    """The compile_backward fixture on an opened page, its compiled (static) graph picked; its record
    and that graph."""
    record = load_example(page, "compile_backward")
    static = graph(record, capture="compile")
    page.select_option("#graph-pick", static["id"])
    return record, static


def test_hovering_a_static_backward_node_lights_the_forward_node_it_differentiates(reused_page):
    page = reused_page()
    record, static = open_compiled_step(page)
    tanh = next(n["id"] for n in static["forward"]["nodes"] if n["op"] == "tanh")
    tanh_back = next(n["id"] for n in static["backward"]["nodes"] if n["op"] == "tanh_backward")
    switch(page, "backward")
    page.wait_for_selector(f"#view-backward g.node[id='{tanh_back}']")
    page.hover(f"#view-backward g.node[id='{tanh_back}']")
    assert lit(page, "#view-forward") == {tanh}
    assert lit(page, "#view-backward") == {tanh_back}
    # and back: a forward node lights every backward node of its vjp
    switch(page, "forward")
    mul = next(n for n in static["forward"]["nodes"] if n["op"] == "mul" and n["line"] == 5)
    partners = {n["id"] for n in static["backward"]["nodes"] if n.get("forward_node") == mul["id"]}
    page.hover(f"#view-forward g.node[id='{mul['id']}']")
    assert len(partners) > 1 and lit(page, "#view-backward") == partners


def test_the_stepper_walks_a_static_backward_lighting_each_vjp_and_its_forward_node(reused_page):
    page = reused_page()
    record, static = open_compiled_step(page)
    page.evaluate("window.dagscope.select('step')")
    page.wait_for_selector("#view-step-backward g.node.current")
    steps = static["steps"]
    assert [s["op"] for s in steps][:3] == ["SumBackward0", "MulBackward0", "TanhBackward0"]
    i = next(k for k, s in enumerate(steps) if s["op"] == "MulBackward0")
    page.evaluate(f"window.dagscope.step({i})")
    assert classed(page, "#view-step-backward", "current") == set(steps[i]["nodes"]) and len(steps[i]["nodes"]) == 3
    assert classed(page, "#view-step-forward", "current") == {steps[i]["forward_node"]}
    assert classed(page, "#view-step-backward", "done") == set(steps[0]["nodes"])
    detail = page.inner_text("#step-detail")
    assert "MulBackward0" in detail and "grad_a = grad * b" in detail
    shot(page, "static_backward_step")
    # add's vjp passes its gradient on unchanged: no backward node of its own, its forward node lit
    add = next(k for k, s in enumerate(steps) if s["op"] == "AddBackward0")
    assert steps[add]["nodes"] == [] and steps[add]["node"] is None
    page.evaluate(f"window.dagscope.step({add})")
    assert classed(page, "#view-step-backward", "current") == set()
    assert classed(page, "#view-step-forward", "current") == {steps[add]["forward_node"]}
    assert "AddBackward0" in page.inner_text("#step-detail")
    # a backward node clicked in the stepper moves it to the step of the vjp that made it
    tanh = next(k for k, s in enumerate(steps) if s["op"] == "TanhBackward0")
    page.click(f"#view-step-backward g.node[id='{steps[tanh]['nodes'][0]}']")
    assert classed(page, "#view-step-forward", "current") == {steps[tanh]["forward_node"]}


COMPILED_CALLS = """import torch


def g(x):
    if x.sum() > 0:
        return x + 1
    return x - 1


c = torch.compile(g)
for v in [1.0, -1.0, 2.0, -2.0, 3.0, -3.0]:
    y = c(torch.full((2,), v))
"""


def test_the_static_tab_lists_a_compiled_functions_calls_with_the_branch_each_took(reused_page):
    page = reused_page()
    page.evaluate("c => window.dagscope.setCode(c)", COMPILED_CALLS)
    record = page.evaluate("() => window.dagscope.run()")
    compiled = graph(record, capture="compile")
    assert compiled["calls_total"] == 6
    page.evaluate("window.dagscope.select('static')")
    page.click(f"#panel-static .chip[data-g='{compiled['id']}']")
    page.wait_for_selector("#panel-static .calls-table tr.call")
    rows = page.eval_on_selector_all("#panel-static .calls-table tr.call", "rs => rs.map(r => r.innerText)")
    assert len(rows) == 5                                   # the first 4 and the last
    assert "then" in rows[0].lower() and "else" in rows[1].lower() and "else" in rows[4].lower()
    assert "6" in page.inner_text("#panel-static .calls h4")
    page.locator("#panel-static .calls").scroll_into_view_if_needed()
    shot(page, "static_compiled_calls")
