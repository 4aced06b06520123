"""A large tensor's values are kept on the server: the inspector draws the record's stats and
preview at once, then the heat-map the server summarised from the kept values, and says to run
again once they are gone."""
import pytest

from tests.browser.conftest import open_page

pytestmark = pytest.mark.browser

CODE = """import torch
torch.manual_seed(0)
w = torch.randn(30, 20, requires_grad=True)
x = torch.randn(8, 30)
loss = (x @ w).tanh().sum()
loss.backward()
"""


def test_a_clicked_node_shows_the_heat_map_of_its_kept_values(page):
    open_page(page)
    page.evaluate("code => window.dagscope.setCode(code)", CODE)
    record = page.evaluate("() => window.dagscope.run()")
    w = next(n for n in record["graphs"][0]["forward"]["nodes"] if n["name"] == "w")
    assert record["run_id"] and w["value"]["values"] and "heatmap" not in w["value"]
    page.click(f"#view-forward g.node[id='{w['id']}']")
    page.wait_for_selector("#inspector-forward svg.heatmap")
    cells = page.eval_on_selector_all("#inspector-forward svg.heatmap", "els => els.map(e => e.querySelectorAll('rect').length)")
    assert cells == [24 * 20, 24 * 20]                    # its value and its gradient
    href = page.get_attribute("#inspector-forward a[download]", "href")
    assert href == f"/api/runs/{record['run_id']}/tensors/{w['value']['values']}"
    # a record whose values the server no longer keeps: the record's view stays, with the reason
    page.evaluate("rec => window.dagscope.load({...rec, run_id: 'A'.repeat(32)})", record)
    page.click(f"#view-forward g.node[id='{w['id']}']")
    page.wait_for_selector("#inspector-forward .tensor-fetch.error")
    assert page.eval_on_selector_all("#inspector-forward .heat-strip", "els => els.length") == 2
    assert "run the program again" in page.inner_text("#inspector-forward .tensor-fetch.error")
    # (Chromium logs the two 404s this provoked as console errors; they are the expected answers)
    page.watch.console_errors[:] = [e for e in page.watch.console_errors if "status of 404" not in e]
