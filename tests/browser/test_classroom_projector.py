"""Issue 17, item 2: graphs large enough to project. At 1280×720 presenting, node labels are at
least 18 px high on screen (measured on the rendered text) in Forward, Step and Passes for graphs
up to 40 visible nodes, the graph pane takes most of the width once the side panel is folded away,
and pane titles share the toolbar's flow, so "Expand all" and the +/− buttons never run under them
(1280×720 presenting, 1024×768, both languages)."""
from pathlib import Path

import pytest

from tests.browser.conftest import open_page, shot

pytestmark = pytest.mark.browser
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
MIN_LABEL_PX = 18
# 40 blocks of Linear + Tanh: over 150 nodes, so the page folds it and offers "Expand all"
DEEP = """import torch
import torch.nn as nn

net = nn.Sequential(*[nn.Sequential(nn.Linear(3, 3), nn.Tanh()) for _ in range(40)])
loss = net(torch.randn(2, 3)).sum()
loss.backward()
"""


def run_code(page, code):
    page.evaluate("code => window.dagscope.setCode(code)", code)
    return page.evaluate("() => window.dagscope.run()")


def label_heights(page, view):
    """The on-screen heights of the node labels inside `view`'s visible canvas."""
    return page.evaluate("""sel => {
        const canvas = document.querySelector(sel + ' .gv-canvas').getBoundingClientRect();
        return [...document.querySelectorAll(sel + ' g.node text')].map(t => t.getBoundingClientRect())
          .filter(r => r.height > 0 && r.bottom > canvas.top && r.top < canvas.bottom && r.right > canvas.left && r.left < canvas.right)
          .map(r => r.height);
    }""", view)


def visible_nodes(page, view):
    return page.evaluate("sel => document.querySelectorAll(sel + ' g.node').length", view)


def overlaps(a, b):
    return a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"] and a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"]


def assert_readable(page, view, least=3):
    heights = label_heights(page, view)
    assert len(heights) >= least, (view, heights)
    assert min(heights) >= MIN_LABEL_PX, (view, sorted(heights)[:5])


def assert_titles_clear(page, pane):
    title = page.locator(f"{pane} .gv-title").bounding_box()
    assert title, pane
    for button in page.locator(f"{pane} .gv-toolbar button:visible").all():
        assert not overlaps(title, button.bounding_box()), (pane, button.inner_text())


def test_projected_graphs_have_labels_of_18px(page):
    page.set_viewport_size({"width": 1280, "height": 720})
    open_page(page, "/?present=1")
    record = run_code(page, (EXAMPLES / "10_mlp_training_step.py").read_text())
    g = record["graphs"][0]
    page.wait_for_selector("#view-forward g.node")
    assert visible_nodes(page, "#view-forward") <= 40
    assert_readable(page, "#view-forward")
    # the graph takes half the width beside the inspector, and most of it once that folds away
    assert page.locator("#view-forward .gv-canvas").bounding_box()["width"] >= 0.5 * 1280
    page.click(f"#view-forward g.node[id='{g['forward']['nodes'][0]['id']}']")
    shot(page, "present_1280_forward")
    page.click("#side-toggle")
    assert not page.is_visible("#inspector-forward") and page.get_attribute("#side-toggle", "aria-expanded") == "false"
    page.wait_for_timeout(100)
    assert page.locator("#view-forward .gv-canvas").bounding_box()["width"] >= 0.6 * 1280
    assert_readable(page, "#view-forward")
    shot(page, "present_1280_forward_side_folded")
    # Step: both panes, the current node in view and readable
    page.click("[data-tab=step]")
    page.wait_for_selector("#view-step-backward g.node.current")
    for pane in ("#view-step-backward", "#view-step-forward"):
        assert_readable(page, pane, least=2)
        assert_titles_clear(page, pane)
    cur = page.locator("#view-step-backward g.node.current").bounding_box()
    canvas = page.locator("#view-step-backward .gv-canvas").bounding_box()
    assert overlaps(cur, canvas)
    page.click("#step-detail") if page.is_visible("#step-detail") else page.click("#stepper-controls .step-label")
    page.keyboard.press("ArrowRight")                           # the stepper follows its node, readable
    page.wait_for_selector("#view-step-backward g.node.current")
    assert_readable(page, "#view-step-backward", least=2)
    cur = page.locator("#view-step-backward g.node.current").bounding_box()
    canvas = page.locator("#view-step-backward .gv-canvas").bounding_box()
    assert cur["x"] >= canvas["x"] - 1 and cur["x"] + cur["width"] <= canvas["x"] + canvas["width"] + 1
    shot(page, "present_1280_step_side_folded")
    page.click("#side-toggle")                                  # and back, kept across a reload
    assert page.is_visible("#step-detail")
    assert_readable(page, "#view-step-backward", least=2)
    shot(page, "present_1280_step")
    # ⤢ fits the whole drawing (an overview), smaller than readable when it has to be
    page.click("[data-tab=forward]")
    page.click("#view-forward .gv-fit")
    box = page.locator("#view-forward svg g.graph").bounding_box()
    canvas = page.locator("#view-forward .gv-canvas").bounding_box()
    assert box["height"] <= canvas["height"] + 1 and len(g["forward"]["nodes"]) > 10


def test_passes_panes_are_readable_when_presenting(page):
    page.set_viewport_size({"width": 1280, "height": 720})
    open_page(page, "/?present=1&lang=zh-CN")
    run_code(page, (EXAMPLES / "11_compile_fusion.py").read_text())
    page.click("[data-tab=passes]")
    page.wait_for_selector("#panel-passes .pass-after g.node")
    page.wait_for_timeout(100)
    assert_readable(page, "#panel-passes .pass-before", least=2)
    assert_readable(page, "#panel-passes .pass-after", least=2)
    shot(page, "zh-CN_present_1280_passes")


@pytest.mark.parametrize("size, present, lang", [((1280, 720), True, "en"), ((1024, 768), False, "en"),
                                                 ((1024, 768), False, "zh-CN")])
def test_step_titles_clear_of_expand_all_and_zoom_buttons(page, size, present, lang):
    page.set_viewport_size({"width": size[0], "height": size[1]})
    open_page(page, f"/?lang={lang}" + ("&present=1" if present else ""))
    run_code(page, DEEP)
    page.click("[data-tab=step]")
    page.wait_for_selector("#view-step-backward g.node.current")
    for pane in ("#view-step-backward", "#view-step-forward"):
        assert page.is_visible(f"{pane} .gv-collapse")             # "Expand all" is offered
        assert_titles_clear(page, pane)
        if present:
            assert_readable(page, pane, least=1)
    name = f"{'present_' if present else ''}{size[0]}_step_deep"
    shot(page, name if lang == "en" else f"zh-CN_{name}")
