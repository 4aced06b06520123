"""Issue 17, item 9: a running program can be stopped from the page. Stop shows only while a run is
going; a click ends it on the server at once (the run's answer, `stopped`, arrives in seconds, not
at the clock: the test server's is 60 s) and the page says so in its language."""
import time

import pytest

from tests.browser.conftest import shot

pytestmark = pytest.mark.browser

FOREVER = "import time\nprint('counting', flush=True)\nwhile True:\n    time.sleep(0.01)\n"
SIZES = [("1440", (1440, 900), False), ("present_1280", (1280, 720), True), ("1024", (1024, 768), False)]


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
@pytest.mark.parametrize("name, size, present", SIZES)
def test_stop_ends_a_running_program(reused_page, lang, name, size, present):
    page = reused_page(f"/?lang={lang}" + ("&present=1" if present else ""), size=size)
    assert page.locator("#stop").is_hidden()
    page.evaluate("code => window.dagscope.setCode(code)", FOREVER)
    page.click("#run")
    page.wait_for_selector("#stop:visible")
    page.wait_for_timeout(300)
    shot(page, f"{lang}_{name}_stop_running")
    started = time.monotonic()
    page.click("#stop")
    page.wait_for_function("!window.dagscope.state.running", timeout=9000)
    assert time.monotonic() - started < 6, "the run was not stopped early"
    assert page.locator("#stop").is_hidden()
    record = page.evaluate("window.dagscope.state.record")
    assert record["error"]["kind"] == "stopped"
    status = page.inner_text("#status")
    assert status.startswith("Stopped after" if lang == "en" else "已在"), status
    assert "owner" not in page.inner_text("#panel-output")         # the English message is not shown as such
    assert ("Stopped" if lang == "en" else "已停止") in page.inner_text("#panel-output .error-box")
    shot(page, f"{lang}_{name}_stop_stopped")
    # the page runs again normally after a stop
    page.evaluate("code => window.dagscope.setCode(code)", "print(3)\n")
    assert page.evaluate("() => window.dagscope.run()")["stdout"] == "3\n"
