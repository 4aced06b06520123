"""Issue 17: a run its time limit ended shows what it printed (app/sandbox/runner.py interrupts it
first), and the server's own messages — the time limit, a note about the record — are in the page's
language from their wording (error_message.*, warning_messages), not the server's English; Python's
own words stay code. One reused page, presenting at 1280x720, 简体中文 then English."""
import json

import pytest

from tests.browser.conftest import painted, shot

pytestmark = pytest.mark.browser

NOTE = "The run's record had malformed summaries (SummaryWriter's values); they were left out."


def timed_out(first: dict) -> dict:
    record = json.loads(json.dumps(first))
    record.update(ok=False, stdout="epoch 0 loss 2.31\nepoch 1 loss 1.87\n", stderr="",
                  output_order=[["stdout", 36]], warnings=[NOTE],
                  warning_messages=[{"key": "warning.record_bad_summaries", "params": {}}],
                  error={"kind": "timeout", "type": "TimeoutError", "message": "stopped after 10 s", "line": None,
                         "traceback": "", "wording": {"key": "error_message.timeout", "params": {"s": "10"}}})
    return record


def test_a_timed_out_run_shows_its_output_and_the_limit_in_the_pages_words(reused_page):
    page = reused_page("/?lang=zh-CN&present=1", size=(1280, 720))
    page.evaluate("r => window.dagscope.load(r)", timed_out(page.first["record"]))
    page.evaluate("window.dagscope.select('output')")
    painted(page)
    panel = page.inner_text("#panel-output")
    assert "epoch 0 loss 2.31" in panel and "epoch 1 loss 1.87" in panel       # what it printed is kept
    assert "运行 10 秒后被停止（时间限制）" in panel and "stopped after" not in panel
    assert "摘要（SummaryWriter 的值）格式不正确" in panel and "malformed" not in panel
    assert "运行 10 秒后被停止" in page.inner_text("#status")
    shot(page, "zh-CN_present_1280_timed_out_output")
    page.select_option("#lang", "en")
    page.wait_for_function("document.documentElement.lang === 'en'")
    page.evaluate("window.dagscope.select('output')")
    painted(page)
    panel = page.inner_text("#panel-output")
    assert "stopped after 10 s" in panel and NOTE in panel and "epoch 1 loss 1.87" in panel
    shot(page, "en_present_1280_timed_out_output")
    page.select_option("#lang", "zh-CN")
    page.wait_for_function("document.documentElement.lang === 'zh-CN'")


def test_pythons_own_words_stay_code_and_an_unknown_wording_falls_back(reused_page):
    page = reused_page("/?lang=zh-CN&present=1", size=(1280, 720))
    record = timed_out(page.first["record"])
    record["error"] = {"kind": "runtime_error", "type": "ValueError", "message": "bad value", "line": 2,
                       "traceback": "", "wording": {"key": "error_message.no_such_key", "params": {}}}
    page.evaluate("r => window.dagscope.load(r)", record)
    page.evaluate("window.dagscope.select('output')")
    assert page.inner_text("#panel-output .error-message code.quoted") == "bad value"


def test_a_refusal_of_the_server_is_in_the_pages_words(reused_page):
    page = reused_page("/?lang=zh-CN&present=1", size=(1280, 720))
    page.evaluate("code => window.dagscope.setCode(code)", "x = 1\n" * 20_000)      # past the 100 kB a run may be
    page.evaluate("() => window.dagscope.run().catch(() => null)")
    page.wait_for_function("!window.dagscope.state.running")
    status = page.inner_text("#status")
    assert "无法运行：代码超过了 100000 字节" in status and "longer" not in status
    painted(page)
    shot(page, "zh-CN_present_1280_code_too_long")
    page.watch.console_errors.remove("Failed to load resource: the server responded with a status of 413 "
                                     "(Request Entity Too Large)")        # (the refusal asked for)
