"""Presentation mode can be left: Escape (from the page or the editor) and a visible Exit button
take `present=1` out of the URL in place (no reload, no history entry), the stepper's arrows work
while presenting; and Python's warnings on stderr mark their lines in the editor and light the
Output tab's dot."""
import pytest

from tests.browser.conftest import SEED, open_page, shot

pytestmark = pytest.mark.browser


WARNED = """import torch
t = torch.ones(2, 3, 4, requires_grad=True)
u = t.T
v = torch.tensor(t[0])
w = (u * 2).sum()
w.backward()
"""


def run_code(page, code):
    page.evaluate("code => window.dagscope.setCode(code)", code)
    return page.evaluate("() => window.dagscope.run()")


def presenting(page) -> bool:
    return page.evaluate("document.body.classList.contains('present')")


def query(page) -> str:
    return page.evaluate("location.search")


def test_escape_leaves_presentation_in_place_and_arrows_step_meanwhile(page):
    open_page(page)
    run_code(page, SEED)
    page.evaluate("window.dagscope.step(0)")
    page.wait_for_selector("#view-step-backward g.node.current")
    page.click("#present")
    assert presenting(page) and "present=1" in query(page)
    assert page.is_visible("#present-exit") and not page.is_visible("#present")
    assert page.inner_text("#present-exit").split("\n") == ["✕", "Exit presentation", "Esc"]
    assert page.get_attribute("#present-exit", "title") == "Leave presentation mode (Esc)"
    page.keyboard.press("ArrowRight")                        # the stepper's keys while presenting
    assert page.evaluate("window.dagscope.state.step") == 1
    page.keyboard.press("ArrowRight")
    assert page.evaluate("window.dagscope.state.step") == 2 and "step=3" in page.evaluate("location.hash")
    shot(page, "presenter_exit_control")
    page.evaluate("window.notReloaded = true")
    entries, hash_before = page.evaluate("history.length"), page.evaluate("location.hash")
    page.keyboard.press("Escape")
    assert not presenting(page)
    assert "present" not in query(page) and page.evaluate("location.hash") == hash_before
    assert page.evaluate("window.notReloaded") and page.evaluate("history.length") == entries
    assert page.is_visible("#present") and not page.is_visible("#present-exit")
    assert page.get_attribute("#present", "aria-pressed") == "false"
    page.keyboard.press("ArrowLeft")                         # and after it
    assert page.evaluate("window.dagscope.state.step") == 1
    # Back walks the view states and does not bring the mode back (nor leave present=1 in the URL)
    page.go_back()
    page.wait_for_function("window.dagscope.state.step === 2")
    assert not presenting(page) and "present" not in query(page)


def test_a_page_opened_presenting_has_an_exit_button_in_its_language(page):
    open_page(page, "/?present=1&lang=zh-CN&hide=gallery")
    run_code(page, SEED)
    assert presenting(page) and page.is_visible("#present-exit")
    assert "退出演示" in page.inner_text("#present-exit")
    assert page.get_attribute("#present-exit", "title") == "退出演示模式（Esc）"
    box = page.locator("#present-exit").bounding_box()
    assert box["x"] > 1440 * 0.7 and box["y"] < 60                 # at the top bar's right end
    shot(page, "zh-CN_presenter_exit_control")
    page.click("#present-exit")
    assert not presenting(page)
    assert query(page) == "?lang=zh-CN&hide=gallery"                # only the mode's flag is gone
    assert page.evaluate("document.activeElement.id") == "present"  # the focus is not left on a hidden button
    page.keyboard.press("Enter")                                    # and so the keyboard brings it back
    assert presenting(page) and "present=1" in query(page)


def test_escape_in_the_editor_leaves_presentation_too(page):
    open_page(page, "/?present=1")
    page.click(".cm-content")
    page.keyboard.press("Escape")
    assert not presenting(page) and "present" not in query(page)


def test_stderr_warnings_mark_their_lines_and_light_the_output_dot(page):
    open_page(page)
    record = run_code(page, WARNED)
    assert record["ok"]
    assert "<dagscope>:3: UserWarning" in record["stderr"] and "<dagscope>:4: UserWarning" in record["stderr"]
    marked = page.eval_on_selector_all(".cm-mark-warn", "els => els.map(e => e.textContent.trim())")
    assert marked == ["u = t.T", "v = torch.tensor(t[0])"]
    assert page.evaluate("window.dagscope.state.tab") == "forward" and page.is_visible("#output-dot")
    assert "dot-warn" in page.get_attribute("#output-dot", "class")
    assert page.get_attribute("#output-dot", "title") == "The run wrote warnings or text to stderr: see Output"
    colour = page.eval_on_selector("#output-dot", "e => getComputedStyle(e).backgroundColor")
    assert colour == "rgb(217, 119, 6)"                            # --warn, as the marked lines
    shot(page, "editor_stderr_warning_lines")
    run_code(page, SEED)                                            # a clean run clears both
    assert page.eval_on_selector_all(".cm-mark-warn", "els => els.length") == 0
    assert not page.is_visible("#output-dot")
    run_code(page, "import torch\nprint(1 / 0)")                  # a failure keeps the red dot
    assert page.is_visible("#output-dot") and "dot-warn" not in page.get_attribute("#output-dot", "class")
    assert page.eval_on_selector("#output-dot", "e => getComputedStyle(e).backgroundColor") == "rgb(220, 38, 38)"
