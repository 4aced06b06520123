"""Static, Passes, Kernels and Memory tabs, built on a fixture run record that follows DESIGN.md,
plus the friendly explanations when a run has none, and a large graph opening folded."""
import json
from pathlib import Path

import pytest

from tests.browser.conftest import open_page, shot

pytestmark = pytest.mark.browser
FIXTURE = json.loads((Path(__file__).parent / "fixtures" / "static_record.json").read_text())
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def load(page, record, code=None):
    if code is not None:
        page.evaluate("c => window.dagscope.setCode(c)", code)
    page.evaluate("r => window.dagscope.load(r)", record)


def cls(page, selector):
    return page.get_attribute(selector, "class") or ""


def test_static_tab_overlays_trace_and_script(page):
    open_page(page)
    load(page, FIXTURE, (EXAMPLES / "06_trace_vs_script.py").read_text())
    page.evaluate("window.dagscope.select('static')")
    page.click("#panel-static .chip[data-g='g2']")
    page.wait_for_selector("#panel-static .ov-script g.node")
    page.wait_for_selector("#panel-static .ov-trace g.node")
    trace = lambda n: cls(page, f"#panel-static .ov-trace g.node[id='{n}']")
    script = lambda n: cls(page, f"#panel-static .ov-script g.node[id='{n}']")
    assert "frozen" in trace("%5")                      # the condition the trace turned into a constant
    assert "changed" in trace("%7") and "changed" in trace("%6")   # the one branch it saw, baked in
    assert "added" in script("%12")                     # the script kept the branch as a cond node
    assert "changed" not in trace("%2") and "added" not in script("%2")
    assert "froze" in page.inner_text("#panel-static .warn-box")
    assert page.inner_text(".cm-mark-warn").strip().startswith("if x.sum() > 0")   # warning on line 11
    page.click("#panel-static .ov-script g.node[id='%2']")           # a node's source line lights up
    assert page.inner_text(".cm-mark-hover").strip() == "y = x * 2"
    shot(page, "static")
    page.click("#panel-static .chip[data-g='g5']")
    page.wait_for_selector("#panel-static .retraces")
    retraces = page.inner_text("#panel-static .retraces")
    assert "first call" in retraces and "new input signature" in retraces


def test_passes_tab_colours_the_diff_and_moves_with_arrows(page):
    open_page(page)
    load(page, FIXTURE, (EXAMPLES / "11_compile_fusion.py").read_text())
    page.evaluate("window.dagscope.select('passes')")
    page.wait_for_selector("#panel-passes .pass-after g.node")
    names = page.eval_on_selector_all(".pass-item", "els => els.map(e => e.textContent)")
    assert not any("constant_folding" in n for n in names[:-1])      # unchanged passes hidden
    page.click(".pass-item:has-text('algebraic_simplification')")
    page.wait_for_function("document.querySelector('.pass-before g.node.removed')")
    assert "removed" in cls(page, ".pass-before g.node[id='n10']")
    assert "changed" in cls(page, ".pass-after g.node[id='n8']")
    assert "0.0 * y → 0" in page.inner_text(".pass-notes")
    assert page.locator(".ir-diff .del").count() > 0
    shot(page, "passes")
    page.keyboard.press("ArrowDown")                                  # next visible pass: DCE
    page.wait_for_function("document.querySelector('.pass-item.active').textContent.includes('dead_code')")
    page.keyboard.press("ArrowDown")
    page.wait_for_selector(".pass-after g.node[id='k0'].added")
    assert "pass=4" in page.evaluate("location.hash")
    page.uncheck(".hide-unchanged")
    assert page.locator(".pass-item").count() == 6


def test_kernel_hover_lights_nodes_and_source_lines(page):
    open_page(page)
    load(page, FIXTURE, (EXAMPLES / "11_compile_fusion.py").read_text())
    page.evaluate("window.dagscope.select('kernels')")
    page.wait_for_selector("#panel-kernels .kernel-graph g.node")
    assert page.locator(".tok-kw").count() > 0 and "4.0" in page.inner_text(".speedup")
    page.hover("#panel-kernels .kernel >> nth=0")
    for node in ["n3", "n5", "n6", "n8"]:
        assert "hover" in cls(page, f".kernel-graph g.node[id='{node}']")
    assert "hover" not in cls(page, ".kernel-graph g.node[id='n10']")
    assert page.locator(".cm-mark-hover").count() == 4               # lines 9-12 of the user's code
    shot(page, "kernels")
    page.hover("#panel-kernels .kernel >> nth=1")                    # a backward kernel lights the backward graph
    assert "hover" in cls(page, ".kernel-graph[data-side=backward] g.node[id='%21']")
    assert "hover" not in cls(page, ".kernel-graph[data-side=forward] g.node[id='n3']")


def test_memory_tab_draws_lifetimes_with_shared_colours(page):
    open_page(page)
    load(page, FIXTURE)
    page.evaluate("window.dagscope.select('memory')")
    page.wait_for_selector("svg.lifetimes")
    fills = page.eval_on_selector_all("svg.lifetimes .life", "gs => gs.map(g => [g.dataset.buffer, g.querySelector('rect').getAttribute('fill')])")
    assert "n3 mul" in page.text_content("svg.lifetimes") and "tanh_2" in page.inner_text(".schedule")
    assert len(fills) == 4
    by_buffer = {}
    for buf, fill in fills:
        by_buffer.setdefault(buf, set()).add(fill)
    assert all(len(f) == 1 for f in by_buffer.values()) and len({next(iter(f)) for f in by_buffer.values()}) == 2
    assert "4.0 MB" in page.inner_text(".peaks") and "2.0 MB" in page.inner_text(".peaks")
    shot(page, "memory")


def test_friendly_explanations_when_a_run_has_no_static_parts(page):
    open_page(page)
    page.evaluate("c => window.dagscope.setCode(c)", (EXAMPLES / "01_autograd_basics.py").read_text())
    page.evaluate("() => window.dagscope.run()")
    for tab in ["static", "passes", "kernels", "memory"]:
        page.evaluate(f"window.dagscope.select('{tab}')")
        text = page.inner_text(f"#panel-{tab} .empty-state")
        assert len(text) > 60, tab


def synthetic_graph(blocks=12, per_block=160):
    """A 2,000-node backward-like graph: a chain of identical blocks in layers.N modules."""
    nodes, edges, prev = [{"id": "in", "op": "input", "label": "x", "kind": "input", "shape": [8]}], [], "in"
    for b in range(blocks):
        for i in range(per_block):
            nid = f"b{b}_{i}"
            nodes.append({"id": nid, "op": ["mul", "add", "tanh", "sum"][i % 4], "label": f"op{i}",
                          "kind": "grad", "shape": [8], "module": f"layers.{b}.{['attn', 'mlp'][i % 2]}"})
            edges.append({"src": prev, "dst": nid, "shape": [8]})
            prev = nid
        # a module-less constant used inside each block (like LayerNorm's eps): folded with it
        nodes.append({"id": f"eps{b}", "op": "const", "label": "1e-05", "kind": "const", "shape": []})
        edges.append({"src": f"eps{b}", "dst": f"b{b}_3", "shape": []})
    return {"nodes": nodes, "edges": edges}


def test_large_graph_opens_folded_and_expands(page):
    open_page(page)
    g = synthetic_graph()
    record = {"ok": True, "stdout": "", "error": None, "graphs": [
        {"id": "g1", "kind": "dynamic", "title": "big", "forward": g, "backward": None, "steps": []}]}
    load(page, record)
    page.wait_for_selector("#view-forward g.node.folded")
    assert page.locator("#view-forward g.node").count() < 5         # input, Block ×12: no loose constants
    assert "Block ×12" in page.inner_text("#view-forward .gv-canvas")
    page.click("#view-forward g.node.folded >> nth=0")                # unfold the repeat into 12 blocks
    page.wait_for_function("document.querySelectorAll('#view-forward g.node.folded').length >= 12")
    page.click("#view-forward g.node[id='fold_layers.3']")            # open one block
    page.wait_for_selector("#view-forward g.node[id='fold_layers.3.attn']")
    shot(page, "large_graph")


def test_clicking_a_module_frame_folds_it_and_clicking_the_box_opens_it(page):
    open_page(page)
    nodes = [{"id": "x", "op": "input", "label": "x", "kind": "input", "shape": [2]},
             {"id": "a", "op": "mul", "label": "mul", "kind": "op", "shape": [2], "module": "fc"},
             {"id": "b", "op": "add", "label": "add", "kind": "op", "shape": [2], "module": "fc"},
             {"id": "c", "op": "sum", "label": "sum", "kind": "output", "shape": []}]
    edges = [{"src": "x", "dst": "a"}, {"src": "a", "dst": "b"}, {"src": "b", "dst": "c"}]
    load(page, {"ok": True, "stdout": "", "error": None, "graphs": [
        {"id": "g1", "kind": "dynamic", "title": "t", "forward": {"nodes": nodes, "edges": edges}, "backward": None, "steps": []}]})
    page.wait_for_selector("#view-forward g.cluster")
    box = page.locator("#view-forward g.cluster > path").bounding_box()
    page.mouse.click(box["x"] + 6, box["y"] + box["height"] / 2)      # on the frame's left side
    page.wait_for_selector("#view-forward g.node[id='fold_fc']")
    assert page.locator("#view-forward g.node[id='a']").count() == 0
    page.click("#view-forward g.node[id='fold_fc']")
    page.wait_for_selector("#view-forward g.node[id='a']")
