"""Issue 17, Compare two runs: edit the code, run again, and the Compare tab shows the previous and
this run's graphs side by side with the added, removed and changed nodes coloured (matched by module
path and op, not by id: static/js/rundiff.js) and the printed numbers diffed. One page for the whole
matrix (1440x900, 1280x720 presenting, 1024x768; English and 简体中文), and rundiff's units."""
import pytest

from tests.browser.conftest import open_page, shot

pytestmark = pytest.mark.browser

BEFORE = """import torch
import torch.nn as nn

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
x = torch.randn(16, 4)
loss = net(x).pow(2).mean()
loss.backward()
print("loss", round(loss.item(), 4))
print("done")
"""
AFTER = BEFORE.replace("nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1)", "nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 1)")
SIZES = [("1440", (1440, 900), False), ("present_1280", (1280, 720), True), ("1024", (1024, 768), False)]


def js(page, body):
    return page.evaluate(f"async () => {{ {body} }}")


def test_rundiff_matches_by_module_and_op_and_diffs_numbers(page):
    open_page(page)
    out = js(page, """const m = await import('/static/js/rundiff.js');
        const N = (id, op, module, extra = {}) => ({id, op, module, kind: 'op', ...extra});
        const before = {nodes: [N('n1', 'param', '0', {kind: 'param', name: '0.weight', shape: [8, 4]}),
            N('n2', 'addmm', '0', {shape: [16, 8]}), N('n3', 'relu', '1'), N('n4', 'addmm', '2', {value: {stats: {mean: 0.5}}}),
            N('n5', 'mul', null), N('n6', 'mul', null)]};
        const after = {nodes: [N('a7', 'param', '0', {kind: 'param', name: '0.weight', shape: [6, 4]}),
            N('a8', 'addmm', '0', {shape: [16, 8]}), N('a9', 'tanh', '1'), N('a1', 'addmm', '2', {value: {stats: {mean: 0.25}}}),
            N('a2', 'mul', null)]};
        return [m.diffGraphs(before, after), m.diffOutputs('loss 0.5\\nepoch 1\\ngone\\ntensor([1., 2.])\\n',
                                                             'loss 0.25\\nepoch 1\\ntensor([1., 2.5])\\nnew\\n'),
                m.nodeKey({op: 'addmm', module: 'encoder.layers.0'}), m.skeleton('fc1.weight 3.5e-3 nan')];""")
    graphs, rows, key, skel = out
    assert graphs["pairs"] == [["n1", "a7"], ["n2", "a8"], ["n4", "a1"], ["n5", "a2"]]   # ids differ: matched by what they are
    assert graphs["added"] == ["a9"] and sorted(graphs["removed"]) == ["n3", "n6"]
    assert graphs["changed"] == [{"prev": "n1", "cur": "a7", "why": "shape"}, {"prev": "n4", "cur": "a1", "why": "value"}]
    assert [(r["op"], r["text"]) for r in rows] == [("~", "loss 0.25"), (" ", "epoch 1"), ("-", "gone"),
                                                    ("~", "tensor([1., 2.5])"), ("+", "new")]
    assert rows[0]["numbers"] == [{"was": 0.5, "now": 0.25, "delta": -0.25}]
    assert rows[3]["numbers"] == [{"was": 2, "now": 2.5, "delta": 0.5}]
    assert key == "encoder.layers.0/addmm" and skel == "fc1.weight # #"


def test_compare_shows_two_runs_side_by_side(page):
    open_page(page, "/#tab=compare")
    page.evaluate("code => window.dagscope.setCode(code)", BEFORE)
    page.evaluate("() => window.dagscope.run()")
    page.evaluate("code => window.dagscope.setCode(code)", AFTER)
    page.evaluate("() => window.dagscope.run()")
    page.evaluate("window.dagscope.select('compare')")
    page.wait_for_selector("#panel-compare .compare-after svg")
    page.wait_for_selector("#panel-compare .compare-before svg")
    assert "tab=compare" in page.url
    marked = page.evaluate("""() => ({
        removed: [...document.querySelectorAll('.compare-before g.node.removed')].map(g => g.textContent),
        added: [...document.querySelectorAll('.compare-after g.node.added')].map(g => g.textContent),
        changedBefore: document.querySelectorAll('.compare-before g.node.changed').length,
        changedAfter: document.querySelectorAll('.compare-after g.node.changed').length})""")
    assert any("relu" in t for t in marked["removed"]) and any("tanh" in t for t in marked["added"])
    assert marked["changedBefore"] == marked["changedAfter"] > 0    # 0.weight's shape, the values after it
    out = page.inner_text("#panel-compare .out-diff")
    assert "loss" in out and "→" in out and "done" in out
    # a node picked in one drawing lights its match in the other
    page.locator(".compare-after g.node.changed").first.click()
    assert page.locator(".compare-before g.node.sel").count() == 1
    for lang in ["en", "zh-CN"]:
        page.select_option("#lang", lang)
        page.wait_for_function(f"document.documentElement.lang === '{lang}'")
        page.evaluate("window.dagscope.select('compare')")
        page.wait_for_selector("#panel-compare .compare-after svg")
        head = page.inner_text("#panel-compare .compare-head")
        assert ("This run against the previous one" if lang == "en" else "这次运行与上一次对比") in head
        for name, (w, h), present in SIZES:
            page.set_viewport_size({"width": w, "height": h})
            page.evaluate(f"document.body.classList.toggle('present', {str(present).lower()})")
            page.evaluate("() => window.dispatchEvent(new Event('resize'))")
            page.wait_for_timeout(300)
            shot(page, f"{lang}_{name}_compare")
        page.evaluate("document.body.classList.remove('present')")
