"""One identity for a node across the page (static/js/identity.js): a kernel line, a captured
node, a pass drawing and the user's source line light each other, and a pick survives switching
tabs. Built on the run record of example 11 (tests/browser/fixtures), whose passes fold, simplify
(b * 1.0 -> b), CSE (b = y * half is a's node) and fuse everything into one kernel."""
import pytest

from tests.browser.conftest import shot
from tests.browser.test_static_views import cls, line_of, load_example

pytestmark = pytest.mark.browser
EXAMPLE = "11_compile_fusion"


def lit(page, selector):
    """Ids of the drawn nodes under `selector` that carry the identity's class."""
    return set(page.eval_on_selector_all(f"{selector} g.node.ident", "gs => gs.map(g => g.id)"))


def marked_lines(page):
    return [t.strip() for t in page.eval_on_selector_all(".cm-mark-hover", "els => els.map(e => e.textContent)")]


def switch(page, tab):
    """Switch tabs as a user does, with the pointer on the tab strip rather than over the new panel."""
    page.hover(f"[data-tab='{tab}']")
    page.evaluate(f"window.dagscope.select('{tab}')")


def open_example_tabs(page):
    """Load the example and draw Static, Passes (on its last pass) and Kernels once."""
    load_example(page, EXAMPLE)
    page.evaluate("window.dagscope.select('static')")
    page.wait_for_selector("#panel-static .static-graph g.node")
    page.evaluate("window.dagscope.select('passes')")
    page.wait_for_selector("#panel-passes .pass-after g.node")
    page.click(".pass-item:has-text('memory_planning')")
    page.wait_for_function("document.querySelector('.pass-item.active').textContent.includes('memory_planning')")
    page.evaluate("window.dagscope.select('kernels')")
    page.wait_for_selector("#panel-kernels .kernel-graph g.node")


def test_hovering_a_kernel_line_lights_its_node_in_the_last_pass_and_its_source_line(reused_page):
    page = reused_page()
    open_example_tabs(page)
    page.hover("#panel-kernels .kl[data-node='%8']")                 # tanh(x * w + 1.0)
    assert "ident" in cls(page, "#panel-kernels .kl[data-node='%8']")
    assert lit(page, "#panel-passes .pass-after") == {"%8"}
    # the rest of its fusion group is marked as such in the fused graph
    assert "ident-group" in cls(page, "#panel-passes .pass-after g.node[id='%5']")
    assert lit(page, "#panel-static .static-graph") == {"%8"}
    assert lit(page, "#panel-kernels .kernel-graph") == {"%8"}
    assert marked_lines(page) == ["y = torch.tanh(x * w + 1.0)"]
    assert "lit" in cls(page, "#panel-kernels .kernel >> nth=0")
    # the line computing a's product also computes b's (CSE) and b * 1.0's (simplified to b):
    # as captured, three nodes on three lines became this one
    page.hover("#panel-kernels .kl[data-node='%11']")
    assert lit(page, "#panel-static .static-graph") == {"%11", "%12", "%16"}
    assert lit(page, "#panel-passes .pass-after") == {"%11"}
    assert marked_lines(page) == ["a = y * half", "b = y * half                        # CSE: the same computation as `a`, computed once",
                                  "return (a + b * 1.0) * 0.5 + keep   # algebraic simplification: b * 1.0 is just b"]
    shot(page, "identity_kernels")
    page.mouse.move(2, 2)                                              # off the kernel: nothing was picked
    assert not lit(page, "#panel-passes .pass-after") and not marked_lines(page)


def test_a_node_picked_in_static_stays_lit_in_kernels_and_passes(reused_page):
    page = reused_page()
    open_example_tabs(page)
    switch(page, "static")
    page.click("#panel-static .static-graph g.node[id='%12']")          # b = y * half, merged into a by CSE
    assert marked_lines(page) == ["b = y * half                        # CSE: the same computation as `a`, computed once"]
    switch(page, "kernels")
    assert "lit" in cls(page, "#panel-kernels .kernel >> nth=0")
    assert "ident" in cls(page, "#panel-kernels .kl[data-node='%11']")   # the survivor's line in the kernel
    assert lit(page, "#panel-kernels .kernel-graph") == {"%12"}
    switch(page, "passes")
    assert lit(page, "#panel-passes .pass-after") == {"%11"}
    assert lit(page, "#panel-passes .pass-before") == {"%11"}
    page.click(".pass-item:has-text('cse')")
    page.wait_for_selector("#panel-passes .pass-before g.node.ident[id='%12']")
    assert lit(page, "#panel-passes .pass-before") == {"%12"} and lit(page, "#panel-passes .pass-after") == {"%11"}
    assert "ident" in cls(page, "#panel-passes .notes li[data-node='%12']")   # "CSE: same as %11"
    shot(page, "identity_passes")
    # dead code has no kernel: picking it lights no kernel
    switch(page, "static")
    page.click("#panel-static .static-graph g.node[id='%10']")          # unused = y * 3.0
    switch(page, "kernels")
    assert page.locator("#panel-kernels .kernel.lit").count() == 0
    assert page.evaluate("window.dagscope.identity().ids") == ["%10"]
    # the pick is part of the view state in the URL: Back restores the one before
    assert "pick=g1%7Cforward%7C0%7C%2510" in page.evaluate("location.hash")
    page.go_back()                                                     # Static, %10 picked
    page.go_back()                                                     # the CSE pass, %12 picked
    page.wait_for_function("window.dagscope.identity()?.ids?.[0] === '%12'")
    assert lit(page, "#panel-passes .pass-before") == {"%12"}


def test_pointing_at_a_line_of_code_lights_its_nodes(reused_page):
    page = reused_page()
    open_example_tabs(page)
    page.hover(f".cm-content .cm-line >> nth={line_of(EXAMPLE, 'y = torch.tanh') - 1}")
    # x * w, + 1.0 (and its constant) and tanh: the line's nodes, as captured and after the passes
    assert lit(page, "#panel-kernels .kernel-graph") == {"%5", "%6", "%7", "%8"}
    assert set(page.eval_on_selector_all("#panel-kernels .kl.ident", "ls => ls.map(l => l.dataset.node)")) == {"%5", "%7", "%8"}
    assert lit(page, "#panel-passes .pass-after") == {"%5", "%6", "%7", "%8"}
    assert marked_lines(page) == ["y = torch.tanh(x * w + 1.0)"]


def test_identity_helpers(reused_page):
    page = reused_page()
    out = page.evaluate("""async () => {
        const m = await import('/static/js/identity.js');
        const N = (id, line) => ({id, op: 'mul', line});
        const g = {id: 'g', forward: {nodes: [N('%1', 3), N('%2', 4), N('%3', 5)]}, passes: [
            {replaced: {'%2': '%1'}, removed: ['%2'], graph: {nodes: [N('%1', 3), N('%3', 5)], edges: []}},
            {replaced: {}, removed: ['%3'], graph: {nodes: [N('%1', 3)], edges: []}}]};
        const at = (ids, stage) => ({graph: 'g', side: 'forward', stage, ids});
        const src = '/* k: nodes %1 */\\nvoid k(float *o) {\\n  for (i = 0; i < 4; i++) {\\n'
                  + '    /* %1 = mul(%0, %0)  | line 3: a = x * x */\\n    const float v0 = a0 * a0;\\n    o[i] = v0;\\n  }\\n}';
        return {
            follow: [m.follow(g, '%2', 0, 2), m.follow(g, '%3', 0, 1), m.follow(g, '%3', 0, 2)],
            back: m.idsAt(g, at(['%1'], 2), 0), forward: m.idsAt(g, at(['%2'], 0), 2),
            other: m.idsAt(g, {...at(['%1'], 0), graph: 'h'}, 0),
            lines: m.linesOf(g, at(['%1'], 2)),
            kernel: m.kernelLineNodes(src),
        };
    }""")
    assert out["follow"] == ["%1", "%3", None]          # replaced, kept, removed
    assert out["back"] == ["%1", "%2"] and out["forward"] == ["%1"] and out["other"] == []
    assert out["lines"] == [3, 4]
    assert out["kernel"] == [None, None, None, {"node": "%1", "line": 3}, {"node": "%1", "line": 3},
                             {"node": "%1", "line": 3}, None, None]


def test_memory_bars_and_schedule_share_the_identity(reused_page):
    page = reused_page()
    load_example(page, "13_memory_reuse")
    page.evaluate("window.dagscope.select('kernels')")
    page.wait_for_selector("#panel-kernels .kernel-graph g.node")
    switch(page, "memory")
    page.wait_for_selector("svg.lifetimes")
    page.hover("svg.lifetimes .life[data-node='%8'] rect")             # h2 @ w3, in h1's buffer
    assert "ident" in cls(page, "svg.lifetimes .life[data-node='%8']")
    assert "ident" in cls(page, ".schedule li[data-group='fused_matmul_relu_sum_2']")
    assert marked_lines(page) == ["h3 = torch.relu(h2 @ w3)      # ...so h2 @ w3 can reuse h1's buffer"]
    page.hover(".schedule li[data-group='fused_matmul_relu_0']")        # a kernel of the schedule: h1
    lit_bars = page.eval_on_selector_all("svg.lifetimes .life.ident", "gs => gs.map(g => g.dataset.node)")
    assert sorted(lit_bars) == ["%5"]             # (its product, written into h1's array, has no bar)
    assert "lit" in cls(page, "#panel-kernels .kernel >> nth=0") and "ident" in cls(page, "#panel-kernels .kl[data-node='%5']")
