"""Issue 17, Embed with an access token: the `%%dagscope` cell's <iframe> address carries a one-time
ticket for its one page (app/services/embed_tickets.py), never the token — an address is kept in the
browser's history, the notebook's saved output and servers' logs. A real Jupyter kernel runs the
cell against a server started with DAGSCOPE_ACCESS_TOKEN; the framed page opens with the ticket,
runs and draws (the ticket set its session), takes the spent ticket off its own address, and the
same address opens nothing afterwards."""
import os
import re
import subprocess
import sys
import time
import urllib.request

import pytest

from tests.browser.conftest import ROOT, SEED, _free_port, new_page, shot
from tests.browser.test_embed_jupyter import execute, until

pytestmark = pytest.mark.browser
TOKEN = "classroom-token-never-in-an-address"


@pytest.fixture(scope="module")
def token_server(tmp_path_factory):
    """The app with an access token (the session's `server` has none, and its settings are read
    from its environment): its own uvicorn, ~3 s to start on a quiet machine."""
    port = _free_port()
    env = {**os.environ, "DAGSCOPE_DATA_DIR": str(tmp_path_factory.mktemp("token-data")),
           "DAGSCOPE_ACCESS_TOKEN": TOKEN}
    proc = subprocess.Popen([sys.executable, "-m", "uvicorn", "app.main:create_app", "--factory", "--host", "127.0.0.1",
                             "--port", str(port), "--log-level", "warning"], cwd=ROOT, env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                urllib.request.urlopen(base + "/healthz", timeout=1)
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline, "the token server did not start"
                time.sleep(0.2)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.fixture(scope="module")
def kernel(token_server):
    """A real IPython kernel (~3 s) importing this tree's `dagscope` helper, the token in its environment."""
    jupyter_client = pytest.importorskip("jupyter_client")
    pytest.importorskip("ipykernel")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DAGSCOPE_URL": token_server, "DAGSCOPE_ACCESS_TOKEN": TOKEN}
    manager, client = jupyter_client.manager.start_new_kernel(kernel_name="python3", cwd=str(ROOT), env=env)
    try:
        yield client
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def test_the_frame_opens_with_a_one_time_ticket_not_the_token(kernel, token_server, browser):
    assert execute(kernel, "%load_ext dagscope")[0]["status"] == "ok"
    reply, outputs = execute(kernel, "%%dagscope --view forward\n" + SEED)
    assert reply["status"] == "ok", outputs
    html_out = next(o["data"]["text/html"] for o in outputs if o["type"] in ("execute_result", "display_data"))
    assert TOKEN not in html_out and "token" not in html_out        # the notebook's output holds no token
    assert 'loading="lazy"' not in html_out                          # (the ticket is short-lived)
    src = re.search(r'<iframe src="([^"]+)"', html_out).group(1).replace("&amp;", "&")
    assert re.fullmatch(re.escape(token_server) + r"/s/[\w-]+\?embed=1&view=forward&ticket=\d+\.[\w-]+\.[\w-]+", src)

    page = new_page(browser, token_server, (1280, 720))      # a browser with no session on this server
    try:
        notebook = f"{token_server}/static/__test_notebook__"        # (/static is open: no token asked)
        page.route(notebook, lambda route: route.fulfill(content_type="text/html", body=(
            f"<!doctype html><body style='margin:8px'><h3>In [1]: %%dagscope</h3>{html_out}</body>")))
        page.goto(notebook)
        frame = page.wait_for_selector("iframe").content_frame()
        until(frame, "document.body.classList.contains('ready') && window.dagscope.state.record && !window.dagscope.state.running")
        frame.wait_for_selector("#view-forward svg g.node")          # it ran and drew: the ticket's session
        assert frame.evaluate("window.dagscope.state.record.ok")
        assert "ticket=" not in frame.evaluate("location.href")       # spent, and off the frame's address
        shot(page, "en_present_1280_embed_with_ticket")
        page.watch.assert_clean()
    finally:
        page.context.close()

    # the same address again (a saved notebook, a history entry): the ticket is spent
    again = new_page(browser, token_server)
    try:
        answer = again.goto(src)
        assert answer.status == 401 and "needs an access token" in again.inner_text("body")
        again.watch.console_errors.clear()             # (the 401 itself is logged as a failed load)
    finally:
        again.context.close()
