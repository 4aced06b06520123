"""Issue 17, Embed: `%load_ext dagscope` in a real Jupyter kernel (jupyter_client + ipykernel),
a `%%dagscope` cell posts its code to the server and shows the embed page (`/s/<id>?embed=1`)
inline; that page, framed as a notebook frames it, draws the graph, answers the framing page's
messages (docs/embed.md), and refuses to be framed by an origin the server does not allow
(clickjacking; app/security_headers.py). One kernel and one page for the whole matrix
(1440x900, 1280x720 presenting, 1024x768; English and 简体中文)."""
import json
import os
import re
import time
import urllib.request
from pathlib import Path

import pytest

from tests.browser.conftest import SEED, shot

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parents[2]
SIZES = [("1440", (1440, 900), False), ("present_1280", (1280, 720), True), ("1024", (1024, 768), False)]


@pytest.fixture(scope="module")
def kernel(server):
    """A real IPython kernel (~3 s to start) that imports this tree's `dagscope` helper."""
    jupyter_client = pytest.importorskip("jupyter_client")
    pytest.importorskip("ipykernel")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DAGSCOPE_URL": server}
    manager, client = jupyter_client.manager.start_new_kernel(kernel_name="python3", cwd=str(ROOT), env=env)
    try:
        yield client
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def until(frame, expression: str, timeout: float = 30.0):
    """Frame.wait_for_function without eval (the page's CSP refuses it): poll with evaluate."""
    deadline = time.monotonic() + timeout
    while not frame.evaluate(f"() => !!({expression})"):
        assert time.monotonic() < deadline, f"timed out: {expression}"
        time.sleep(0.05)


def execute(client, code: str) -> tuple[dict, list[dict]]:
    """Run a cell: its reply and its outputs (display data, results, errors, streams)."""
    outputs = []

    def keep(msg):
        if msg["msg_type"] in ("display_data", "execute_result", "error", "stream"):
            outputs.append({"type": msg["msg_type"], **msg["content"]})
    reply = client.execute_interactive(code, output_hook=keep, timeout=60)
    return reply["content"], outputs


def test_a_dagscope_cell_shows_the_embed_page_inline(kernel, server, page):
    reply, _ = execute(kernel, "%load_ext dagscope")
    assert reply["status"] == "ok"
    reply, outputs = execute(kernel, "%%dagscope --view backward --height 560\n" + SEED)
    assert reply["status"] == "ok", outputs
    html_out = next(o["data"]["text/html"] for o in outputs if o["type"] in ("execute_result", "display_data"))
    src = re.search(r'<iframe src="([^"]+)"', html_out).group(1).replace("&amp;", "&")
    snippet_id = re.fullmatch(re.escape(server) + r"/s/([\w-]+)\?embed=1&view=backward", src).group(1)
    stored = json.load(urllib.request.urlopen(f"{server}/api/snippets/{snippet_id}"))
    assert stored["code"] == SEED and stored["state"]["tab"] == "backward"
    # a bad option is the cell's error, said in words, not a traceback from deep inside
    reply, outputs = execute(kernel, "%%dagscope --view nowhere\nprint(1)")
    assert reply["status"] == "error" and "--view is one of" in reply["evalue"]

    # the notebook's output in a page of the server's own origin (allowed by default: 'self')
    notebook = f"{server}/__test_notebook__"
    page.route(notebook, lambda route: route.fulfill(content_type="text/html", body=f"<!doctype html><body style='margin:8px'>"
                                                      f"<h3>In [1]: %%dagscope</h3>{html_out}</body>"))
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(notebook)
    frame = page.wait_for_selector("iframe").content_frame()
    until(frame, "document.body.classList.contains('ready') && window.dagscope.state.record && !window.dagscope.state.running")
    frame.wait_for_selector("#view-backward svg g.node")
    assert frame.evaluate("window.dagscope.state.tab") == "backward"
    assert frame.evaluate("[...document.querySelectorAll('.tabs, .gallery, #share')].every(e => !e.offsetParent)")
    assert frame.evaluate("document.querySelector('#embed-open').href").endswith(f"/s/{snippet_id}#tab=backward") or \
        "/s/" + snippet_id in frame.evaluate("document.querySelector('#embed-open').href")

    # the framing page drives it by messages: setCode, run -> ran, select
    page.evaluate("""() => { window.got = []; addEventListener('message', (e) => window.got.push(e.data)); }""")
    page.evaluate("""() => { const w = document.querySelector('iframe').contentWindow;
        w.postMessage({dagscope: 'setCode', code: 'import torch\\nx = torch.ones(2, requires_grad=True)\\n(x * 3).sum().backward()\\nprint(x.grad)\\n'}, '*');
        w.postMessage({dagscope: 'run'}, '*'); w.postMessage({dagscope: 'select', view: 'forward'}, '*');
        w.postMessage({dagscope: 'nonsense'}, '*'); }""")
    until(page, "window.got.some(m => m.dagscope === 'ran') && window.got.some(m => m.dagscope === 'error')")
    ran = next(m for m in page.evaluate("window.got") if m["dagscope"] == "ran")
    assert ran["ok"] and ran["stdout"] == "tensor([3., 3.])\n" and ran["graphs"] == 1
    until(frame, "window.dagscope.state.tab === 'forward'")

    for lang in ["en", "zh-CN"]:
        frame.evaluate(f"() => {{ const s = document.querySelector('#lang'); s.value = '{lang}'; s.dispatchEvent(new Event('change')); }}")
        until(frame, f"document.documentElement.lang === '{lang}' && document.querySelector('#view-forward svg g.node')")
        for name, (w, h), present in SIZES:
            page.set_viewport_size({"width": w, "height": h})
            frame.evaluate(f"document.body.classList.toggle('present', {str(present).lower()})")
            frame.evaluate("() => window.dispatchEvent(new Event('resize'))")
            page.wait_for_timeout(300)
            shot(page, f"{lang}_{name}_embed_in_notebook")
        frame.evaluate("document.body.classList.remove('present')")


def test_only_allowed_origins_frame_it_and_their_messages_only_are_heard(server, page):
    # another site framing the embed page: refused by frame-ancestors (default 'self'), and the
    # page itself (no ?embed=1) is refused to every framer
    page.route("http://course.test/lesson", lambda route: route.fulfill(content_type="text/html", body=(
        f"<!doctype html><iframe id=embed src='{server}/?embed=1'></iframe><iframe id=page src='{server}/?x=1'></iframe>")))
    page.goto("http://course.test/lesson")
    page.wait_for_timeout(1500)          # (a refused frame has no load event to wait for)
    for frame_id in ("embed", "page"):
        frame = page.query_selector(f"#{frame_id}").content_frame()
        assert frame.url.startswith("chrome-error:"), frame.url      # Chromium's page for a refused frame
    page.watch.console_errors.clear()
    page.watch.csp_violations.clear()
    # framed by itself, a message from another window than its parent is ignored
    page.route(f"{server}/__test_host__", lambda route: route.fulfill(content_type="text/html", body=(
        f"<!doctype html><iframe src='{server}/?embed=1' width=900 height=500></iframe>"
        f"<iframe id=whole src='{server}/' width=300 height=200></iframe>")))
    page.goto(f"{server}/__test_host__")
    frame = page.wait_for_selector("iframe").content_frame()
    until(frame, "document.body.classList.contains('ready') && !window.dagscope.state.running")
    before = frame.evaluate("window.dagscope.getCode()")
    frame.evaluate("() => window.postMessage({dagscope: 'setCode', code: 'hijacked'}, '*')")    # itself, not its parent
    page.wait_for_timeout(200)
    assert frame.evaluate("window.dagscope.getCode()") == before
    # the whole page (no ?embed=1) is not framed even by its own origin
    assert page.query_selector("#whole").content_frame().url.startswith("chrome-error:")
    page.watch.console_errors.clear()
    page.watch.csp_violations.clear()


def test_origin_matching_of_the_message_api(page):
    from tests.browser.conftest import open_page
    open_page(page)
    out = page.evaluate("""async () => { const m = await import('/static/js/embed.js');
        const s = ["'self'", 'http://localhost:8888', 'https://*.course.edu'];
        return ['http://localhost:8888', 'http://localhost:8889', 'https://a.course.edu', 'https://a.b.course.edu',
                'https://course.edu', 'http://a.course.edu', 'https://evilcourse.edu', 'https://a.course.edu.evil.com',
                'http://self.test'].map(o => m.originAllowed(o, s, 'http://self.test'));}""")
    assert out == [True, False, True, True, False, False, False, False, True]
