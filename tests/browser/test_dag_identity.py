"""The autograd DAGs (Forward, Backward, Step) share the page's one identity: a line of code, a
forward node or a backward node lights its partners in both drawings and the editor line, on every
tab that draws them, and a pick made anywhere persists there. Also the trace-vs-script overlay: a
node picked in one capture lights its counterpart in the other."""
import pytest

from tests.browser.conftest import shot
from tests.browser.test_identity import lit, marked_lines, switch
from tests.browser.test_static_views import cls, graph, line_of, load_example, open_trace_overlay

pytestmark = pytest.mark.browser

CODE = """import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([3.0, 4.0], requires_grad=True)
y = x * w
loss = y.sum()
loss.backward()
"""
MUL_LINE = 4


def run_dynamic(page):
    """Run CODE; returns its graph and the ids of x * w forward and its MulBackward0."""
    page.evaluate("c => window.dagscope.setCode(c)", CODE)
    record = page.evaluate("() => window.dagscope.run()")
    g = next(g for g in record["graphs"] if g.get("backward"))
    mul = next(n["id"] for n in g["forward"]["nodes"] if n["op"] == "mul")
    mul_back = next(n["id"] for n in g["backward"]["nodes"] if n.get("forward_node") == mul)
    return g, mul, mul_back


def hover_line(page, n):
    page.hover(f".cm-content .cm-line >> nth={n - 1}")


def test_a_line_of_code_lights_its_nodes_and_their_partners_in_both_dags(reused_page):
    page = reused_page()
    g, mul, mul_back = run_dynamic(page)
    hover_line(page, MUL_LINE)
    assert lit(page, "#view-forward") == {mul}
    assert lit(page, "#view-backward") == {mul_back}                     # drawn on a hidden tab: lit all the same
    assert marked_lines(page) == ["y = x * w"]
    page.mouse.move(2, 2)
    assert not lit(page, "#view-forward") and not lit(page, "#view-backward") and not marked_lines(page)


def test_hovering_a_backward_node_lights_its_forward_node_and_line(reused_page):
    page = reused_page()
    g, mul, mul_back = run_dynamic(page)
    switch(page, "backward")
    page.wait_for_selector("#view-backward g.node")
    page.hover(f"#view-backward g.node[id='{mul_back}']")
    assert lit(page, "#view-backward") == {mul_back}
    assert lit(page, "#view-forward") == {mul}
    assert marked_lines(page) == ["y = x * w"]
    # a forward leaf: its AccumulateGrad lights in the backward DAG
    switch(page, "forward")
    leaf = next(n for n in g["forward"]["nodes"] if n.get("name") == "w")
    acc = {n["id"] for n in g["backward"]["nodes"] if n.get("forward_node") == leaf["id"]}
    page.hover(f"#view-forward g.node[id='{leaf['id']}']")
    assert acc and lit(page, "#view-backward") == acc
    # nothing is redrawn on a hover: the same SVG element before and after
    same = page.evaluate("""() => { const svg = document.querySelector('#view-forward svg'); window.__svg = svg; return true; }""")
    page.hover(f"#view-forward g.node[id='{mul}']")
    assert same and page.evaluate("document.querySelector('#view-forward svg') === window.__svg")


def test_a_node_picked_in_the_stepper_stays_lit_in_forward_and_backward(reused_page):
    page = reused_page()
    g, mul, mul_back = run_dynamic(page)
    page.evaluate("window.dagscope.select('step')")
    page.wait_for_selector("#view-step-forward g.node")
    page.click(f"#view-step-forward g.node[id='{mul}']")
    assert lit(page, "#view-step-backward") == {mul_back}
    assert marked_lines(page) == ["y = x * w"]
    assert "pick=" in page.evaluate("location.hash")
    switch(page, "forward")
    assert lit(page, "#view-forward") == {mul} and lit(page, "#view-backward") == {mul_back}
    # a backward node clicked in the stepper moves it to that node's step, and is the pick
    switch(page, "step")
    page.click(f"#view-step-backward g.node[id='{mul_back}']")
    step = next(i for i, s in enumerate(g["steps"]) if s["node"] == mul_back)
    assert page.evaluate("window.dagscope.state.step") == step
    assert lit(page, "#view-step-forward") == {mul}
    shot(page, "identity_step")
    # the pick is restored from the URL on a fresh page
    page.reload()
    page.wait_for_function("document.body.classList.contains('ready') && window.dagscope.state.record && !window.dagscope.state.running")
    page.wait_for_function(f"window.dagscope.identity()?.ids?.[0] === '{mul_back}'")
    assert lit(page, "#view-forward") == {mul}


def test_a_pick_in_the_static_tab_lights_the_forward_and_backward_dags(reused_page):
    page = reused_page()
    record = load_example(page, "compile_backward")
    compiled = graph(record, capture="compile")
    tanh = next(n["id"] for n in compiled["forward"]["nodes"] if n["op"] == "tanh")
    switch(page, "static")
    page.click(f"#panel-static .static-graph g.node[id='{tanh}']")
    switch(page, "forward")
    page.wait_for_selector("#view-forward g.node")
    assert page.evaluate("window.dagscope.state.graph.id") == compiled["id"]
    assert lit(page, "#view-forward") == {tanh}
    # hovering a DAG node replaces the pick while the pointer is there, then the pick is back
    mul = next(n["id"] for n in compiled["forward"]["nodes"] if n["op"] == "mul")
    page.hover(f"#view-forward g.node[id='{mul}']")
    assert lit(page, "#view-forward") == {mul}
    page.mouse.move(2, 2)
    assert lit(page, "#view-forward") == {tanh}


def test_the_trace_and_script_overlay_lights_the_counterpart_in_the_other_capture(reused_page):
    page = reused_page()
    traced = graph(open_trace_overlay(page), capture="trace")
    page.wait_for_selector("#panel-static .ov-script g.node")
    page.wait_for_selector("#panel-static .ov-trace g.node")
    page.click("#panel-static .ov-trace g.node[id='%2']")               # y = x * 2, in both captures
    assert lit(page, "#panel-static .ov-trace") == {"%2"}
    assert lit(page, "#panel-static .ov-script") == {"%2"}
    page.hover("#panel-static .ov-script g.node[id='%5']")              # x.sum() > 0: the script's comparison
    assert lit(page, "#panel-static .ov-trace") == {"%5"}                 # is the one the trace froze
    assert "ident" in cls(page, "#panel-static pre.ir .irl[data-node='%5']")
    # the ops of the branch the trace saw are inside the script's cond: no counterpart there
    then = next(n["id"] for n in traced["forward"]["nodes"] if n["op"] == "add" and n["line"] == line_of("06_trace_vs_script", "y = y + 1"))
    page.click(f"#panel-static .ov-trace g.node[id='{then}']")
    assert lit(page, "#panel-static .ov-trace") == {then} and not lit(page, "#panel-static .ov-script")


def test_counterparts_pair_same_op_on_same_line_in_order(reused_page):
    page = reused_page()
    out = page.evaluate("""async () => {
        const m = await import('/static/js/staticview.js');
        const N = (id, op, line, kind = 'op', label = op) => ({id, op, line, kind, label});
        const a = {forward: {nodes: [N('%0', 'placeholder', null, 'input', 'x'), N('%1', 'mul', 3), N('%2', 'mul', 3),
                                     N('%3', 'constant', null, 'const'), N('out', 'output', null, 'output')]}};
        const b = {forward: {nodes: [N('%9', 'placeholder', null, 'input', 'x'), N('%4', 'mul', 3), N('%5', 'mul', 3),
                                     N('%6', 'constant', null, 'const'), N('output', 'output', null, 'output')]}};
        return [m.counterparts(a, b, ['%2']), m.counterparts(a, b, ['%0', 'out']), m.counterparts(a, b, ['%3'])];
    }""")
    assert out == [["%5"], ["%9", "output"], []]
