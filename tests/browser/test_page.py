"""The page in headless Chromium: the seed snippet run and drawn, linked selection, the stepper,
errors marked in the editor, share links, export, presenter mode and the language switch. Tests
that change no more than a run, a selection or a tab share one page (reused_page)."""
import os

import pytest

from tests.browser.conftest import SEED, open_page, shot

pytestmark = pytest.mark.browser


def run_code(page, code):
    page.evaluate("code => window.dagscope.setCode(code)", code)
    return page.evaluate("() => window.dagscope.run()")


def drawn_ids(page, view):
    return set(page.eval_on_selector_all(f"{view} g.node", "els => els.map(e => e.id)"))


def test_seed_snippet_pasted_and_run_draws_both_dags(reused_page):
    page = reused_page()
    page.evaluate("code => window.dagscope.setCode(code)", SEED)
    page.click(".cm-content")
    page.keyboard.press("Control+Enter")            # the keyboard shortcut runs it
    page.wait_for_function("code => window.dagscope.state.recordCode === code && !window.dagscope.state.running", arg=SEED)
    page.wait_for_selector("#view-forward g.node")
    record = page.evaluate("window.dagscope.state.record")
    assert record["ok"] and record["stdout"] == "tensor([2., 2.])\n"
    graph = record["graphs"][0]
    assert drawn_ids(page, "#view-forward") == {n["id"] for n in graph["forward"]["nodes"]}
    shot(page, "forward")
    page.evaluate("window.dagscope.select('backward')")
    page.wait_for_selector("#view-backward g.node")
    assert drawn_ids(page, "#view-backward") == {n["id"] for n in graph["backward"]["nodes"]}
    ops = page.eval_on_selector_all("#view-backward g.node text", "els => els.map(e => e.textContent)")
    assert {"MulBackward0", "SumBackward0", "AccumulateGrad"} <= set(ops)
    shot(page, "backward")


def test_linked_selection_and_inspector(reused_page):
    page = reused_page()
    record = run_code(page, SEED)
    g = record["graphs"][0]
    mul = next(n for n in g["forward"]["nodes"] if n["op"] == "mul")
    mul_back = next(n for n in g["backward"]["nodes"] if n["forward_node"] == mul["id"])
    page.click(f"#view-forward g.node[id='{mul['id']}']")
    assert "sel" in page.get_attribute(f"#view-forward g.node[id='{mul['id']}']", "class")
    assert "linked" in page.get_attribute(f"#view-backward g.node[id='{mul_back['id']}']", "class")
    inspector = page.inner_text("#inspector-forward")
    assert "mul" in inspector and "a * b" in inspector and "4." in inspector   # value [2., 4.] and the op card
    # the source line link jumps the editor
    page.click("#inspector-forward .jump-line")
    assert page.evaluate("window.dagscope.state.node") == mul["id"]
    shot(page, "inspector")
    # and the reverse: a backward node lights its forward node
    page.evaluate("window.dagscope.select('backward')")
    page.click(f"#view-backward g.node[id='{mul_back['id']}']")
    assert "linked" in page.get_attribute(f"#view-forward g.node[id='{mul['id']}']", "class")
    assert "grad_a = grad * b" in page.inner_text("#inspector-backward")
    # a leaf offers the numerical gradient check, computed on request; it ends in a passing badge
    page.evaluate("window.dagscope.select('forward')")
    leaf = next(n for n in g["forward"]["nodes"] if n["kind"] in ("input", "param"))
    page.click(f"#view-forward g.node[id='{leaf['id']}']")
    page.click("#inspector-forward .gradcheck-run")
    page.wait_for_selector("#inspector-forward .gradcheck .badge.ok")


def test_stepper_moves_and_values_change(page):
    open_page(page)
    record = run_code(page, SEED)
    steps = record["graphs"][0]["steps"]
    page.evaluate("window.dagscope.step(0)")
    page.wait_for_selector("#view-step-backward g.node.current")
    assert page.get_attribute(f"#view-step-backward g.node[id='{steps[0]['node']}']", "class").count("current")
    assert "current" in page.get_attribute(f"#view-step-forward g.node[id='{steps[0]['forward_node']}']", "class")
    first = page.inner_text("#step-detail")
    page.keyboard.press("ArrowRight")
    assert "current" in page.get_attribute(f"#view-step-backward g.node[id='{steps[1]['node']}']", "class")
    assert "done" in page.get_attribute(f"#view-step-backward g.node[id='{steps[0]['node']}']", "class")
    second = page.inner_text("#step-detail")
    assert second != first and "MulBackward0" in second and "grad_a = grad * b" in second
    assert page.evaluate("location.hash").find("step=2") > 0
    shot(page, "step")
    # arrows on a focused tab move between tabs (and do not step)
    page.focus("[data-tab=step]")
    page.keyboard.press("ArrowRight")
    assert page.evaluate("window.dagscope.state.tab") == "static"
    page.keyboard.press("ArrowLeft")
    assert page.evaluate("window.dagscope.state.tab") == "step"
    assert "current" in page.get_attribute(f"#view-step-backward g.node[id='{steps[1]['node']}']", "class")
    page.locator("#step-detail").click()                            # focus back on the page body
    page.keyboard.press("ArrowRight")
    assert "x.grad" in page.inner_text("#step-detail")        # the leaf gradient has accumulated
    # predict then reveal: the gradient is hidden until a guess is typed and revealed
    page.keyboard.press("ArrowLeft")
    page.check(".predict-toggle")
    assert page.locator("#step-detail .guess").count() == 1
    page.fill("#step-detail .guess", "2, 2")
    page.click("#step-detail .reveal")
    assert "✓" in page.inner_text("#step-detail")
    # the forward stepper walks the ops in execution order, inputs lit
    page.click("[data-mode=forward]")
    fwd = record["graphs"][0]["forward"]
    ops = [n for n in fwd["nodes"] if n["kind"] in ("op", "output")]
    assert "current" in page.get_attribute(f"#view-step-forward g.node[id='{ops[0]['id']}']", "class")
    assert "linked" in page.get_attribute("#view-step-forward g.node[id='%s']" % next(
        e["src"] for e in fwd["edges"] if e["dst"] == ops[0]["id"]), "class")
    page.keyboard.press("ArrowRight")
    assert "current" in page.get_attribute(f"#view-step-forward g.node[id='{ops[1]['id']}']", "class")
    assert "6." in page.inner_text("#step-detail")                  # z = sum([2., 4.]) = 6.


def test_error_line_marked_in_editor_and_output(reused_page):
    page = reused_page()
    record = run_code(page, "import torch\nx = torch.tensor([1.0])\ny = 1 / 0\n")
    assert not record["ok"] and record["error"]["line"] == 3
    page.wait_for_selector(".cm-mark-error")
    assert page.inner_text(".cm-mark-error").strip() == "y = 1 / 0"
    page.evaluate("window.dagscope.select('output')")
    assert "ZeroDivisionError" in page.inner_text("#panel-output")
    shot(page, "error")


def test_share_link_round_trip_and_back_button(page, browser):
    open_page(page)
    run_code(page, SEED)
    page.evaluate("window.dagscope.step(1)")
    page.click("#share")
    page.wait_for_function("window.dagscope.lastShareUrl")
    url = page.evaluate("window.dagscope.lastShareUrl")
    assert "/s/" in url
    other = page.context.new_page()
    other.goto(url)
    other.wait_for_function("document.body.classList.contains('ready')")
    assert other.evaluate("window.dagscope.getCode()") == SEED
    assert other.evaluate("window.dagscope.state.tab") == "step"
    other.wait_for_selector("#view-step-backward g.node.current")
    assert "step 2 / 3" in other.inner_text(".step-label")
    other.close()
    # a mistyped link says so and still gives a working page
    missing = page.context.new_page()
    missing.goto(page.base + "/s/nosuchlink")
    missing.wait_for_function("document.body.classList.contains('ready')")
    assert "nosuchlink" in missing.inner_text("#toast")
    missing.close()
    # the view state is in the URL: Back returns to the previous tab
    page.evaluate("window.dagscope.select('output')")
    page.go_back()
    page.wait_for_function("window.dagscope.state.tab === 'step'")


@pytest.mark.parametrize("fmt, magic", [("svg", b"<svg"), ("png", b"\x89PNG"), ("dot", b"digraph")])
def test_export_current_graph(reused_page, fmt, magic):
    page = reused_page()
    run_code(page, SEED)
    with page.expect_download() as info:
        page.click(f".export[data-format='{fmt}']")
    path = info.value.path()
    assert magic in open(path, "rb").read(400)
    assert info.value.suggested_filename == f"dagscope-forward.{fmt}"


def test_presenter_mode_and_language_switch(page):
    open_page(page, "/?present=1&hide=gallery")
    assert page.evaluate("document.body.classList.contains('present')")
    assert not page.is_visible("#share") and not page.is_visible(".gallery")
    run_code(page, SEED)
    font = page.evaluate("parseFloat(getComputedStyle(document.body).fontSize)")
    assert font >= 18
    shot(page, "presenter")
    page.select_option("#lang", "zh-CN")
    page.wait_for_function("document.querySelector('[data-tab=forward]').textContent.includes('前向图')")
    page.wait_for_selector("#view-forward g.node")
    assert "运行" in page.inner_text("#run")
    shot(page, "presenter_zh-CN")   # needs a CJK font (fonts-wqy-microhei) to show the characters


def test_readme_screenshot(reused_page):
    """The README's picture: the chain-rule example paused mid-backprop (docs/screenshot.png)."""
    from pathlib import Path
    page = reused_page()
    page.click(".example[data-id='02_chain_rule']")                 # the gallery loads and runs it
    page.wait_for_function("window.dagscope.state.recordCode === window.dagscope.getCode() && !window.dagscope.state.running")
    assert page.evaluate("window.dagscope.state.record.ok")
    assert "title_zh" not in page.evaluate("window.dagscope.getCode()")
    page.evaluate("window.dagscope.step(3)")
    page.wait_for_selector("#view-step-backward g.node.current")
    page.wait_for_selector("#view-step-forward g.node.current")
    # Saved beside the other screenshots; DAGSCOPE_UPDATE_DOCS=1 also refreshes the committed
    # README picture (not on every run, so a test run leaves the work tree clean).
    shot(page, "readme")
    if os.environ.get("DAGSCOPE_UPDATE_DOCS") == "1":
        docs = Path(__file__).resolve().parents[2] / "docs"
        docs.mkdir(exist_ok=True)
        page.screenshot(path=str(docs / "screenshot.png"))


def test_busy_server_is_retried_after_its_retry_after(reused_page):
    page = reused_page()
    calls = []

    def busy_once(route):
        calls.append(route.request.url)
        if len(calls) == 1:
            route.fulfill(status=429, headers={"Retry-After": "1", "content-type": "application/json"},
                          body='{"detail": "too many runs"}')
        else:
            route.continue_()

    page.route("**/api/run", busy_once)
    record = run_code(page, SEED)
    assert record["ok"] and len(calls) == 2
    page.unroute("**/api/run", busy_once)                    # the page serves the next test
    # Chromium logs every 4xx response itself; that one was this test's doing
    page.watch.console_errors[:] = [e for e in page.watch.console_errors if "status of 429" not in e]


def test_busy_renderer_is_retried_after_its_retry_after(reused_page):
    """Every render slot busy (503): the graph view asks again after Retry-After and draws."""
    page = reused_page()
    calls = []

    def busy_once(route):
        calls.append(route.request.url)
        if len(calls) == 1:
            route.fulfill(status=503, headers={"Retry-After": "1", "content-type": "application/json"},
                          body='{"detail": "The server is drawing 2 graphs already; try again in a moment."}')
        else:
            route.continue_()

    page.route("**/api/render/batch", busy_once)
    record = run_code(page, SEED.replace("x * 2", "x * 7"))      # a graph the page has not drawn yet
    page.wait_for_selector("#view-forward g.node")
    assert drawn_ids(page, "#view-forward") == {n["id"] for n in record["graphs"][0]["forward"]["nodes"]}
    assert len(calls) >= 2
    page.unroute("**/api/render/batch", busy_once)
    page.watch.console_errors[:] = [e for e in page.watch.console_errors if "status of 503" not in e]
