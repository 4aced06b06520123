"""The Charts tab: SummaryWriter's scalars and histograms, and with no logger the numbers a loop
printed under a recognisable name; hover values; as text only (a run's tags are hostile); both
languages, at a projector's 1280x720."""
import pytest

from tests.browser.conftest import open_page, shot
from tests.browser.test_zh_tour import english_left, to_zh

pytestmark = pytest.mark.browser

LOGGED = """import torch
from torch.utils.tensorboard import SummaryWriter
torch.manual_seed(0)
w = torch.randn(20, requires_grad=True)
opt = torch.optim.SGD([w], lr=0.1)
writer = SummaryWriter()
for step in range(30):
    loss = (w ** 2).sum()
    opt.zero_grad(); loss.backward(); opt.step()
    writer.add_scalar("loss/train", loss.item(), step)
    writer.add_scalars("norms", {"w": w.norm().item(), "grad": w.grad.norm().item()}, step)
writer.add_histogram("w", w, 29)
writer.add_scalar("<img src=x onerror=alert(1)>", 1.0, 0)
writer.close()
"""
PRINTED = """import torch
torch.manual_seed(0)
w = torch.randn(8, requires_grad=True)
for epoch in range(12):
    loss = (w ** 2).sum()
    loss.backward()
    with torch.no_grad():
        w -= 0.1 * w.grad
        w.grad.zero_()
    print(f"epoch {epoch + 1}, loss {loss.item():.4f}, acc {epoch / 12:.2f}")
"""


def js(page, body):
    return page.evaluate(f"async () => {{ {body} }}")


def test_printed_numbers_become_series_with_their_x_axis(reused_page):
    page = reused_page()
    out = js(page, r"""const m = await import('/static/js/charts.js');
        const tags = (s) => m.printedSeries(s).map(x => [x.tag, x.xName, x.points.length, x.points[1]]);
        return {
          d2l: tags('epoch 1, loss 0.040\nepoch 2, loss 0.000101\nepoch 3, loss 0.000050'),
          tutorial: tags('loss: 2.303  [   64/60000]\nloss: 2.29  [ 6464/60000]\nTest Error: \n Accuracy: 12.5%, Avg loss: 2.1\n'),
          nanogpt: tags('step 0: train loss 4.2874, val loss 4.2823\nstep 250: train loss 1.9, val loss 2.0\n'),
          keras: tags('Epoch 1/2 - loss: 0.6931 - accuracy: 0.5000\nEpoch 2/2 - loss: 0.5 - accuracy: 0.75\n'),
          bracket: tags('Epoch [1/5], Step [100/600], Loss: 0.31\nEpoch [1/5], Step [200/600], Loss: 0.2\nEpoch [2/5], Step [100/600], Loss: 0.1'),
          none: tags('hello 1\nhello 2\nx = 3\nloss once 1.0'),
        };""")
    assert out["d2l"] == [["loss", "epoch", 3, [2, 0.000101]]]
    assert out["tutorial"] == [["loss", None, 2, [1, 2.29]]]          # "Avg loss" is its own, single, series
    assert out["nanogpt"] == [["train loss", "step", 2, [250, 1.9]], ["val loss", "step", 2, [250, 2]]]
    assert out["keras"] == [["loss", "epoch", 2, [2, 0.5]], ["accuracy", "epoch", 2, [2, 0.75]]]
    # the step restarts each epoch, the epoch repeats: neither only grows, so the print count is the axis
    assert out["bracket"] == [["loss", None, 3, [1, 0.2]]]
    assert out["none"] == []


def run(page, code):
    page.evaluate("c => window.dagscope.setCode(c)", code)
    record = page.evaluate("() => window.dagscope.run()")
    assert record["ok"], record["error"]
    page.click("[data-tab='charts']")
    page.wait_for_selector("#panel-charts .chart-card, #panel-charts .empty-state")
    return record


def test_logged_scalars_and_a_histogram_are_charted_with_hover_values(reused_page):
    page = reused_page(size=(1280, 720))
    run(page, LOGGED)
    cards = page.eval_on_selector_all("#panel-charts figure.chart-card figcaption b", "els => els.map(e => e.textContent)")
    assert cards[:3] == ["loss/train", "norms/w", "norms/grad"] and "w" in cards
    # the hostile tag is a caption's text, and nothing it names became an element
    assert "<img src=x onerror=alert(1)>" in cards
    assert page.locator("#panel-charts img").count() == 0
    assert page.locator("#panel-charts .chart-line").count() == 4 and page.locator("#panel-charts .hist-bar").count() == 30
    first = page.locator("#panel-charts figure.chart-card").first
    assert first.locator(".chart-value").text_content().startswith("last: ")
    box = first.locator("svg.chart").bounding_box()
    page.mouse.move(box["x"] + box["width"] * 0.2, box["y"] + box["height"] * 0.5)
    readout = first.locator(".chart-value").text_content()
    assert readout.startswith("step ") and ":" in readout, readout
    assert first.locator(".chart-cursor").get_attribute("visibility") == "visible"
    shot(page, "charts_logged_1280")
    page.mouse.move(2, 2)
    assert first.locator(".chart-value").text_content().startswith("last: ")


def test_printed_numbers_are_charted_when_nothing_was_logged_in_chinese(page):
    page.set_viewport_size({"width": 1280, "height": 720})
    open_page(page)
    to_zh(page)
    run(page, PRINTED)
    tags = page.eval_on_selector_all("#panel-charts figcaption b", "els => els.map(e => e.textContent)")
    assert tags == ["loss", "acc"]
    assert page.locator("#panel-charts .badge").first.text_content() == "打印输出"
    assert page.locator("#panel-charts .tick.x").count() > 0
    assert english_left(page, "charts") == []
    shot(page, "zh-CN_charts_printed_1280")


def test_a_run_with_nothing_to_chart_says_how_to_get_one(reused_page):
    page = reused_page()
    run(page, "import torch\nprint(torch.ones(2))\n")
    assert "SummaryWriter" in page.text_content("#panel-charts .empty-state")
