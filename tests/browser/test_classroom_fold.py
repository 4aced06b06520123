"""Issue 17, item 8: a mid-sized model (a LeNet-like CNN, 29 nodes forward and 26 backward) offers folding by
module like a large one, its modules' boxes say what they do, and its long chain is laid out left
to right, wrapped into rows, so its labels stay readable (1440×900, 1280×720 presenting,
1024×768, both languages)."""
import pytest

from tests.browser.conftest import open_page, shot

pytestmark = pytest.mark.browser

LENET = """import torch
import torch.nn as nn
import torch.nn.functional as F

class LeNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, padding=2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)

torch.manual_seed(0)
net = LeNet()
x = torch.randn(4, 1, 28, 28)
target = torch.tensor([1, 0, 3, 7])
loss = F.cross_entropy(net(x), target)
loss.backward()
"""


def run_code(page, code):
    page.evaluate("code => window.dagscope.setCode(code)", code)
    return page.evaluate("() => window.dagscope.run()")


def smallest_label(page, view="#view-forward"):
    return page.evaluate("""sel => Math.min(...[...document.querySelectorAll(sel + ' g.node text')]
        .map(t => t.getBoundingClientRect().height).filter(h => h > 0))""", view)


@pytest.mark.parametrize("size, present, lang", [((1440, 900), False, "en"), ((1280, 720), True, "en"),
                                                 ((1024, 768), False, "zh-CN")])
def test_a_mid_sized_cnn_folds_by_module_and_is_laid_out_in_rows(page, size, present, lang):
    page.set_viewport_size({"width": size[0], "height": size[1]})
    open_page(page, "/?present=1" if present else "/")
    if lang != "en":
        page.select_option("#lang", lang)
        page.wait_for_function("document.querySelector('[data-tab=forward]').textContent.includes('前向图')")
    if size[0] < 1280:    # a small screen gives the graph the width (Hide details)
        page.click("#side-toggle")
    record = run_code(page, LENET)
    forward = record["graphs"][0]["forward"]
    assert 25 <= len(forward["nodes"]) <= 60 and any(n.get("module") for n in forward["nodes"])
    page.evaluate("window.dagscope.select('forward')")
    page.wait_for_selector("#view-forward g.node")
    # drawn whole (it is not large), and the fold control is offered all the same
    assert page.locator("#view-forward g.node").count() == len(forward["nodes"])
    button = page.locator("#view-forward .gv-collapse")
    assert button.is_visible()
    assert button.inner_text() == ("Collapse modules" if lang == "en" else "按模块折叠")
    # the chain runs left to right, wrapped into rows stacked in order: each row's nodes lie
    # below the previous row's
    rows = page.evaluate("""() => [...document.querySelectorAll('#view-forward g[data-dx]')].map(r =>
        [...r.querySelectorAll('g.node')].map(g => g.getBoundingClientRect()))
        .map(boxes => ({n: boxes.length, top: Math.min(...boxes.map(b => b.top)), bottom: Math.max(...boxes.map(b => b.bottom))}))""")
    assert len(rows) >= 2 and sum(r["n"] for r in rows) == len(forward["nodes"]), rows
    assert all(a["bottom"] <= b["top"] for a, b in zip(rows, rows[1:])), rows
    assert page.locator("#view-forward .row-links path").count() >= len(rows) - 1
    name = f"{'present_' if present else ''}{size[0]}_cnn"
    if present:           # presenting, the first view's labels are projector-sized
        assert smallest_label(page) >= 18, smallest_label(page)
    page.click("#view-forward .gv-fit")
    whole = smallest_label(page)
    shot(page, name if lang == "en" else f"{lang}_{name}")
    if size[0] >= 1280:   # fitted whole, the labels are still legible
        assert whole >= 5.5, whole
    # folded by module: each box names its module and what it computes
    button.click()
    page.wait_for_selector("#view-forward g.node.folded")
    text = page.inner_text("#view-forward .gv-canvas")
    assert "conv1: conv2d" in text and "fc1: addmm" in text, text
    assert page.locator("#view-forward g.node").count() < len(forward["nodes"]) * 0.6
    assert button.inner_text() == ("Expand all" if lang == "en" else "全部展开")
    assert smallest_label(page) >= whole
    shot(page, f"{name}_folded" if lang == "en" else f"{lang}_{name}_folded")
    button.click()
    page.wait_for_function(f"document.querySelectorAll('#view-forward g.node').length === {len(forward['nodes'])}")


def test_a_sequential_of_identical_blocks_folds_into_one_block_box(page):
    open_page(page)
    run_code(page, """import torch
import torch.nn as nn
net = nn.Sequential(*[nn.Sequential(nn.Linear(4, 4), nn.ReLU()) for _ in range(5)])
net(torch.randn(2, 4)).sum().backward()
""")
    page.evaluate("window.dagscope.select('forward')")
    page.click("#view-forward .gv-collapse")
    page.wait_for_selector("#view-forward g.node.folded")
    assert "Block ×5" in page.inner_text("#view-forward .gv-canvas")
    assert page.locator("#view-forward g.node.folded").count() == 1
    page.click("#view-forward g.node.folded")             # the run opens into its five blocks
    page.wait_for_function("document.querySelectorAll('#view-forward g.node.folded').length === 5")


def test_the_cnn_steps_with_its_current_node_in_view_when_presenting(page):
    """Step's two small panes keep the CNN top to bottom (no rows, no fold button crowding their
    toolbars); stepping brings each current node into view in both."""
    page.set_viewport_size({"width": 1280, "height": 720})
    open_page(page, "/?present=1")
    record = run_code(page, LENET)
    # Backward draws the whole gradient graph (in rows or not), every node once
    page.click("[data-tab=backward]")
    page.wait_for_selector("#view-backward g.node")
    assert page.locator("#view-backward g.node").count() == len(record["graphs"][0]["backward"]["nodes"])
    page.click("#view-backward .gv-fit")
    shot(page, "present_1280_cnn_backward")
    page.click("[data-tab=step]")
    page.wait_for_selector("#view-step-backward g.node.current")
    for n in (0, 7, 15):
        page.evaluate(f"window.dagscope.step({n})")
        page.wait_for_timeout(150)
        for pane in ("#view-step-backward", "#view-step-forward"):
            current = page.locator(f"{pane} g.node.current")
            if not current.count():
                continue
            box, canvas = current.first.bounding_box(), page.locator(f"{pane} .gv-canvas").bounding_box()
            assert canvas["x"] - 1 <= box["x"] and box["x"] + box["width"] <= canvas["x"] + canvas["width"] + 1, (n, pane)
            assert canvas["y"] - 1 <= box["y"] and box["y"] + box["height"] <= canvas["y"] + canvas["height"] + 1, (n, pane)
        if n == 7:
            shot(page, "present_1280_cnn_step")
    assert page.locator(".panel[data-panel=step] g[data-dx]").count() == 0
    assert not page.is_visible("#view-step-backward .gv-collapse")
