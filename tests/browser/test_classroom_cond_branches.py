"""Issue 17, item 9: a `cond` a script captured (torch.jit.script's `if` on a tensor) is drawn with
both branches as sub-graphs, fed from the cond, the branch the call took marked — not one diamond.
1440x900, 1280x720 presenting and 1024x768, English and 简体中文, with screenshots."""
import pytest

from tests.browser.conftest import shot

pytestmark = pytest.mark.browser
SIZES = [("1440", (1440, 900), False), ("present_1280", (1280, 720), True), ("1024", (1024, 768), False)]
TAKEN = {"en": "then branch ✓ taken", "zh-CN": "真分支 ✓ 已执行"}
OTHER = {"en": "else branch", "zh-CN": "假分支"}


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
@pytest.mark.parametrize("name, size, present", SIZES)
def test_a_scripted_cond_draws_both_branches_with_the_taken_one_marked(reused_page, lang, name, size, present):
    page = reused_page(f"/?lang={lang}" + ("&present=1" if present else ""), size=size)
    ex = next(e for e in page.evaluate("fetch('/api/examples').then(r => r.json()).then(j => j.examples)")
              if e["id"] == "06_trace_vs_script")
    page.evaluate("code => window.dagscope.setCode(code)", ex["code_zh"] if lang == "zh-CN" else ex["code"])
    record = page.evaluate("() => window.dagscope.run()")
    script = [g for g in record["graphs"] if g["capture"] == "script"][-1]
    cond = next(n for n in script["forward"]["nodes"] if n["op"] == "cond")
    assert script["calls"][0]["branches"][0]["taken"] == "then"
    page.evaluate("window.dagscope.select('static')")
    view = page.locator("#panel-static .ov-script")
    then_add = view.locator(f"g.node[id='{cond['id']}/then/%8']")
    else_sub = view.locator(f"g.node[id='{cond['id']}/else/%11']")
    then_add.wait_for()
    assert else_sub.count() == 1 and view.locator(f"g.node[id='{cond['id']}']").count() == 1
    assert "taken" in then_add.get_attribute("class") and "taken" not in else_sub.get_attribute("class")
    labels = " ".join(view.locator("g.cluster text").all_text_contents())
    assert TAKEN[lang] in labels and OTHER[lang] in labels, labels
    # every edge of the graph and of both branches, and one from the cond into each branch
    sub_edges = sum(len(sub["edges"]) for sub in cond["subgraphs"].values())
    assert view.locator("g.edge").count() == len(script["forward"]["edges"]) + sub_edges + 2
    view.scroll_into_view_if_needed()
    shot(page, f"{lang}_{name}_static_cond_branches")
