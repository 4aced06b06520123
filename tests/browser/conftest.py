"""Browser-test fixtures: the app served by uvicorn on a free port, and a headless Chromium page
that refuses every request leaving localhost and collects console errors."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "tests" / "screenshots"
# The page's first example, which several tests run
SEED = """import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
z = y.sum()
z.backward()

print(x.grad)
"""
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]

pytestmark = pytest.mark.browser


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    """The real app in a subprocess (as a user runs it), with its data folder in a temp dir."""
    port = _free_port()
    # a run's limit of 60 s, not 10: the pages run the examples (the CNN, training loops) and check
    # what they draw, not how fast; at 10 s a busy machine (load 20) stopped them as timeouts
    env = {**os.environ, "DAGSCOPE_DATA_DIR": str(tmp_path_factory.mktemp("data")), "DAGSCOPE_RUN_TIMEOUT": "60"}
    proc = subprocess.Popen([sys.executable, "-m", "uvicorn", "app.main:create_app", "--factory",
                             "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"],
                            cwd=ROOT, env=env)
    base = f"http://127.0.0.1:{port}"
    deadline = time.time() + 90             # a loaded shared machine takes 40 s to import and start it
    while time.time() < deadline:
        try:
            urllib.request.urlopen(base + "/healthz", timeout=1)
            break
        except OSError:
            if proc.poll() is not None:
                raise RuntimeError("the app did not start")
            time.sleep(0.2)
    else:
        proc.kill()
        raise RuntimeError("the app did not answer /healthz within 90 s")
    yield base
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's chromium is not installed (/usr/bin/chromium)")
    from playwright.sync_api import Page, sync_playwright
    Page.wait_for_function = _wait_for_function_under_csp     # every page of the session, popups too
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


class PageWatch:
    """What a page did that a test must fail on: console errors and requests leaving localhost."""

    def __init__(self):
        self.console_errors: list[str] = []
        self.outside_requests: list[str] = []
        self.csp_violations: list[str] = []

    def assert_clean(self):
        """Fail on what the page did so far, and start over (a reused page serves the next test)."""
        found = (self.outside_requests, self.csp_violations, self.console_errors)
        self.outside_requests, self.csp_violations, self.console_errors = [], [], []
        assert not found[0], found[0]
        assert not found[1], found[1]
        assert not found[2], found[2]


def new_page(browser, server, size=(1440, 900)):
    """A page in a context of its own that refuses every request leaving localhost and watches
    the console (`page.watch`); `page.base` is the server's address. Close it with page.context.close()."""
    context = browser.new_context(viewport={"width": size[0], "height": size[1]}, accept_downloads=True)
    watch = PageWatch()

    def guard(route):
        url = route.request.url
        host = url.split("/")[2] if "://" in url else ""
        if url.startswith(("data:", "blob:")) or host.split(":")[0] in ("127.0.0.1", "localhost"):
            route.continue_()
        else:
            watch.outside_requests.append(url)
            route.abort()

    context.route("**/*", guard)
    pg = context.new_page()
    pg.on("console", lambda m: watch.console_errors.append(m.text) if m.type == "error" else None)
    # the page's Content-Security-Policy (app/security_headers.py) refused something it does
    pg.on("console", lambda m: watch.csp_violations.append(m.text) if "Content Security Policy" in m.text else None)
    pg.on("pageerror", lambda e: watch.console_errors.append(str(e)))
    pg.watch = watch
    pg.base = server
    return pg


@pytest.fixture
def page(browser, server):
    """A fresh page (its own context: no storage, history or state from another test)."""
    pg = new_page(browser, server)
    yield pg
    pg.context.close()
    pg.watch.assert_clean()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed:
        item.failed_in_browser = True       # reused_page then closes the page it lent


@pytest.fixture(scope="session")
def _pooled_pages(browser, server):
    """The pages `reused_page` keeps open for the whole session, by address."""
    pages: dict[str, object] = {}
    yield pages
    for pg in pages.values():
        pg.context.close()


# What a lent page must show as it did when opened at its address (checked after every reset): a
# setting a test changed and the reset missed would make one test's result depend on another's.
PAGE_STATE_JS = """() => {
  const q = (s) => document.querySelector(s);
  const st = window.dagscope.state;
  return {lang: document.documentElement.lang, langPick: q('#lang').value,
          body: [...document.body.classList].sort().join(' '), href: location.href,
          local: JSON.stringify(Object.entries(localStorage).sort()),
          session: JSON.stringify(Object.entries(sessionStorage).sort()),
          tab: st.tab, graph: st.graph?.id ?? null, node: st.node, step: st.step, pass: st.pass, iter: st.iter,
          previous: !!st.previous, recordCode: st.recordCode ?? null, code: window.dagscope.getCode(),
          tabIndents: q('#tab-indents').checked, predict: q('.predict-toggle')?.checked ?? null,
          walk: q('[data-mode=forward]')?.getAttribute('aria-pressed') ?? null,
          hideUnchanged: q('#panel-passes .hide-unchanged')?.checked !== false,   // drawn or not yet
          selected: document.querySelectorAll('g.node.sel').length,
          focus: document.activeElement === document.body || !document.activeElement,
          openDialogs: document.querySelectorAll('dialog[open]').length,
          // what each view holds drawn, hidden or not: a selector must not find another run's nodes
          // (Step's drawing is the first example's once shown, as on a page just opened and stepped)
          drawn: [...document.querySelectorAll('[data-panel]:not([data-panel=step])')].map((p) => `${p.dataset.panel}:${p.querySelectorAll('g.node, svg').length}`).join(' ')};
}"""

# Back to the page as opened: its language, presenting or not, the side panel, the editor's Tab
# setting, the stepper's predict mode, Passes' unchanged-pass filter (each through the control's
# own handler, as a click would), then the first example's code and record on Forward, no earlier
# run to compare with, empty storage, the address it had, nothing focused, no toast or dialog.
RESET_JS = """async (first) => {
  const q = (s) => document.querySelector(s);
  const pick = q('#lang');
  if (pick.value !== first.state.langPick) { pick.value = first.state.langPick; await pick.onchange({target: pick}); }
  if (document.body.classList.contains('present') !== first.state.body.split(' ').includes('present')) q('#present').onclick();
  if (document.body.classList.contains('side-collapsed') !== first.state.body.split(' ').includes('side-collapsed')) q('#side-toggle').onclick();
  const setting = (el, want) => { if (el && el.checked !== want) { el.checked = want; el.onchange({target: el}); } };
  setting(q('#tab-indents'), first.state.tabIndents);
  setting(q('.predict-toggle'), false);
  setting(q('#panel-passes .hide-unchanged'), true);
  document.querySelectorAll('dialog[open]').forEach((d) => d.close());
  q('#toast').hidden = true;
  await window.dagscope.select('forward');
  window.dagscope.setCode(first.code);
  await window.dagscope.load(first.record);
  // load() redraws Forward and Backward; a view a test drew since (Step too) keeps that run's
  // drawing, hidden, until shown again: shown now, it draws this record (the first example's has no
  // static graph, passes, kernels or charts, so those views hold no drawing, as on a page just opened)
  const opened = Object.fromEntries(first.state.drawn.split(' ').map((e) => e.split(':')));
  for (const panel of document.querySelectorAll('[data-panel]')) {
    const tab = panel.dataset.panel;
    const stale = tab === 'step' ? panel.querySelector('g.node')
      : String(panel.querySelectorAll('g.node, svg').length) !== opened[tab];
    if (!['forward', 'backward'].includes(tab) && stale) await window.dagscope.select(tab);
  }
  await window.dagscope.select('forward');
  window.dagscope.state.recordCode = first.state.recordCode;
  window.dagscope.state.previous = null;
  localStorage.clear();
  sessionStorage.clear();
  for (const [k, v] of JSON.parse(first.state.local)) localStorage.setItem(k, v);
  for (const [k, v] of JSON.parse(first.state.session)) sessionStorage.setItem(k, v);
  history.replaceState(null, '', first.state.href);
  document.activeElement?.blur();
  window.scrollTo(0, 0);
}"""


@pytest.fixture
def reused_page(request, _pooled_pages, browser, server):
    """open(path="/", size=(1440, 900), apart=""): a page opened at `path` once per test session (a page load
    and the page's first run cost seconds each) and lent to each test that asks for the same
    address, back as the page opened: the first example's code and record shown on its Forward tab,
    nothing selected, no run going, at `size`, in the language, presenting mode and settings it
    opened with, storage as it was, its address as it was (RESET_JS; PAGE_STATE_JS checks it, and a
    page the reset could not bring back is replaced by a new one). What the page keeps beyond that
    (its history, the editor's undo) carries over: a test that depends on those uses `page`.
    Tests that change what no reset can see (a page module's own state: test_js_units sets the op
    cards) keep a page of their own, `apart` from the others (apart="js_units").
    Console errors and requests leaving localhost fail the test that caused them; a failed test's
    page is closed, so the next test gets a new one."""
    lent = []

    def fresh(path, size, key):
        pg = new_page(browser, server, size)
        open_page(pg, path)
        pg.first = pg.evaluate("() => ({code: window.dagscope.getCode(), record: window.dagscope.state.record})")
        pg.first["state"] = pg.evaluate(PAGE_STATE_JS)
        _pooled_pages[key] = pg
        return pg

    def open(path: str = "/", size=(1440, 900), apart: str = ""):
        key = (path, apart)
        pg = _pooled_pages.get(key)
        if pg is None:
            pg = fresh(path, size, key)
        else:
            pg.wait_for_function("!window.dagscope.state.running", timeout=30000)
            pg.set_viewport_size({"width": size[0], "height": size[1]})
            pg.evaluate(RESET_JS, pg.first)
            pg.watch.assert_clean()
            now = pg.evaluate(PAGE_STATE_JS)
            if now != pg.first["state"]:
                differs = {k: (v, now[k]) for k, v in pg.first["state"].items() if now[k] != v}
                warnings.warn(f"reused_page: the reset left {differs}; the page at {path} is opened again")
                del _pooled_pages[key]
                pg.context.close()
                pg = fresh(path, size, key)
        lent.append((key, pg))
        return pg

    yield open
    for key, pg in lent:
        if getattr(request.node, "failed_in_browser", False) and _pooled_pages.get(key) is pg:
            del _pooled_pages[key]
            pg.context.close()
    for _, pg in lent:
        pg.watch.assert_clean()


def _wait_for_function_under_csp(pg, expression: str, arg=None, timeout: float = 30000, polling: float = 50):
    """Page.wait_for_function without the eval() Playwright's own waiting runs in the page (the
    page's CSP refuses eval): the expression (or function of `arg`) is polled with page.evaluate,
    which goes through the DevTools protocol, outside the page's policy."""
    is_function = "=>" in expression.split("\n")[0] or expression.lstrip().startswith(("function", "async"))
    call = f"(arg) => !!(({expression})(arg))" if is_function else f"() => !!({expression})"
    deadline = time.monotonic() + timeout / 1000
    while True:
        if pg.evaluate(call, arg) if is_function else pg.evaluate(call):
            return True
        if time.monotonic() > deadline:
            raise TimeoutError(f"wait_for_function timed out after {timeout} ms: {expression[:200]}")
        pg.wait_for_timeout(polling)


def open_page(page, path: str = "/"):
    """Open the page and wait until it is ready and its first run (a fresh page runs the first
    example) has finished, so a test's own run is never confused with it."""
    page.goto(page.base + path)
    page.wait_for_function("document.body.classList.contains('ready') && !window.dagscope.state.running",
                           timeout=30000)


def painted(page):
    """Wait until the page has laid out and painted what it last drew (two animation frames). The
    page's select(), selectNode(), load() and run() have built their DOM when their call returns
    (they draw nothing later, on a timer), so this is all a test reading the screen needs to wait for."""
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")


def shot(page, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path
