"""Issue 17, item 7: a drawing that fails says why in the page's language, for every way it fails
(busy and too slow: test_page.py and test_classroom_worded_errors.py): the server's refusals as
app/services/render.py and app/routes/render.py word them (tests/api/test_render_wording.py), a
request that never reached the server, an answer holding no drawing or not an SVG one. In 简体中文
the notice holds no English word outside code (test_classroom_zh_everywhere.py's rule); Graphviz's
own words stay code. One reused page; each failure is the answer to the drawing of the first
example's record with one label changed (so neither the page's nor the server's cache answers)."""
import json

import pytest

from app.responses import worded
from app.services import render as render_service
from app.services.dot_process import DotFailed
from app.services.svg_clean import SvgRefused
from tests.browser.conftest import painted, shot
from tests.browser.test_classroom_zh_everywhere import english_words

pytestmark = pytest.mark.browser

BUDGET = render_service.Budget(0, 3, 256, 10, 12)


def answer(error: render_service.RenderError) -> tuple[int, str]:
    return error.status, json.dumps(worded(str(error), error.key, **error.params))


def refused(check, *args) -> render_service.RenderError:
    try:
        check(*args)
    except render_service.RenderError as error:
        return error
    raise AssertionError("not refused")


SERVER = {
    "too large": answer(refused(render_service.check_size, {"nodes": [{}] * 20, "edges": []}, BUDGET)),
    "too large together": answer(refused(render_service.check_total_size,
                                         [{"nodes": [{}] * 6, "edges": []}] * 2, BUDGET)),
    "stopped": answer(render_service._failure(DotFailed("killed", "Killed"), 40, BUDGET)),
    "no graphviz": answer(render_service._failure(DotFailed("missing", "Graphviz is not installed: `dot` was not found "
                                                                       "(apt-get install graphviz)."), 40, BUDGET)),
    "dot failed": answer(render_service._failure(DotFailed("error", "Error: syntax error in line 3 near '->'"), 40, BUDGET)),
    "svg refused": answer(render_service._refused(SvgRefused("a DOCTYPE with an internal subset"))),
}
FAILED_JS = """() => { const n = document.querySelector('#view-forward .gv-notice');
    return n && !n.hidden && n.textContent.includes('无法绘制') ? n.textContent : null; }"""
# the notice's text outside code (Graphviz's own words are a <code class="quoted">)
PROSE_JS = """() => { const n = document.querySelector('#view-forward .gv-notice').cloneNode(true);
    n.querySelectorAll('code').forEach(c => c.remove()); return n.textContent; }"""


def fulfilling(status: int, body: str):
    # (a handler of one parameter: Playwright hands a second one the request)
    return lambda route: route.fulfill(status=status, content_type="application/json", body=body)


def fail_drawing(page, first: dict, n: int, handler) -> str:
    """Load the first record with one label changed, its drawing answered by `handler`; the notice."""
    record = json.loads(json.dumps(first))
    record["graphs"][0]["forward"]["nodes"][0]["label"] += f"_{n}"
    page.route("**/api/render/batch", handler)
    try:
        page.evaluate("r => { window.dagscope.load(r); }", record)      # (not awaited: it fails to draw)
        page.wait_for_function(FAILED_JS, timeout=10_000)
        return page.evaluate(FAILED_JS)
    finally:
        page.unroute("**/api/render/batch", handler)


def test_every_drawing_failure_is_in_the_pages_words(reused_page):
    page = reused_page("/?lang=zh-CN", size=(1440, 900))
    first = page.first["record"]
    allowed = {w for n in first["graphs"][0]["forward"]["nodes"] for w in (n.get("label", ""), n.get("op", ""))}
    cases = {name: fulfilling(status, body) for name, (status, body) in SERVER.items()}
    cases["unreachable"] = lambda route: route.abort()
    cases["no drawing"] = lambda route: route.fulfill(status=200, content_type="application/json", body='{"svgs": []}')
    cases["not svg"] = lambda route: route.fulfill(status=200, content_type="application/json",
                                                   body=json.dumps({"svgs": ["<html>not a drawing</html>"]}))
    left = {}
    for n, (name, handler) in enumerate(cases.items()):
        notice = fail_drawing(page, first, n, handler)
        words = english_words(page.evaluate(PROSE_JS), allowed)
        if words:
            left[name] = (notice, words)
        if name in ("stopped", "dot failed", "svg refused", "no graphviz"):
            # another program's own words, as it said them, as code
            assert page.locator("#view-forward .gv-notice code.quoted").count() == 1, (name, notice)
        if name == "stopped":
            painted(page)
            shot(page, "zh-CN_1440_drawing_failed_stopped")
    assert not left, json.dumps(left, ensure_ascii=False, indent=1)
    # the refusals asked for, logged by Chromium itself
    page.watch.console_errors[:] = [e for e in page.watch.console_errors
                                    if not e.startswith("Failed to load resource")]
