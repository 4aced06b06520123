"""Issue 17: a stopped run shows what it printed before the Stop (the program ends as Ctrl+C ends
it; app/sandbox/runner.py RunControl), in the page's Output, with the stop said in its language
(one run, shown in English and then 简体中文, presenting at 1280x720)."""
import pytest

from tests.browser.conftest import open_page, shot

pytestmark = pytest.mark.browser

COUNTING = ("import time\nfor i in range(3):\n    print('counted', i, flush=True)\n"
            "while True:\n    time.sleep(0.01)\n")


def test_a_stopped_run_shows_what_it_printed(page):
    page.set_viewport_size({"width": 1280, "height": 720})
    open_page(page, "/?lang=en&present=1")
    page.evaluate("code => window.dagscope.setCode(code)", COUNTING)
    page.click("#run")
    page.wait_for_selector("#stop:visible")
    page.wait_for_timeout(800)           # (the program prints at once; the Stop must come after)
    page.click("#stop")
    page.wait_for_function("!window.dagscope.state.running", timeout=9000)
    assert page.evaluate("window.dagscope.state.record.error.kind") == "stopped"
    for lang, stopped in [("en", "Stopped"), ("zh-CN", "已停止")]:
        if lang != "en":
            page.select_option("#lang", lang)
            page.wait_for_function(f"document.documentElement.lang === '{lang}'")
        page.evaluate("window.dagscope.select('output')")
        assert "counted 0\ncounted 1\ncounted 2" in page.inner_text("#panel-output pre.stdout")
        assert stopped in page.inner_text("#panel-output .error-box")
        assert "KeyboardInterrupt" not in page.inner_text("#panel-output")
        shot(page, f"{lang}_present_1280_stopped_run_output")
