"""Issue 17, item 4: Tab in the editor follows CodeMirror's accessible convention — it indents,
and Escape then Tab leaves the editor, as a visible hint says — and Tab-to-indent is a visible
setting the page keeps across reloads."""
import pytest

from tests.browser.conftest import open_page, shot

pytestmark = pytest.mark.browser


def in_editor(page) -> bool:
    return page.evaluate("!!document.activeElement.closest('.cm-editor')")


def code(page) -> str:
    return page.evaluate("window.dagscope.getCode()")


def test_tab_indents_and_escape_then_tab_leaves(page):
    open_page(page)
    page.evaluate("window.dagscope.setCode('x = 1\\ny = 2\\n')")
    assert page.is_visible("#tab-indents") and page.is_checked("#tab-indents")
    assert page.inner_text("#editor-hint") == "Esc then Tab leaves the editor"
    assert page.get_attribute(".cm-content", "aria-describedby") == "editor-hint"
    page.click(".cm-content")
    page.keyboard.press("Control+Home")
    page.keyboard.press("Tab")                               # indents: the focus stays
    assert in_editor(page) and code(page) == "  x = 1\ny = 2\n"
    page.keyboard.press("Shift+Tab")
    assert in_editor(page) and code(page) == "x = 1\ny = 2\n"
    page.keyboard.press("Escape")
    page.keyboard.press("Tab")                               # Esc then Tab: out, to the setting
    assert not in_editor(page) and page.evaluate("document.activeElement.id") == "tab-indents"
    assert code(page) == "x = 1\ny = 2\n"
    page.click(".cm-content")
    page.keyboard.press("Escape")
    page.keyboard.press("Shift+Tab")                         # and backwards
    assert not in_editor(page) and code(page) == "x = 1\ny = 2\n"
    shot(page, "editor_tab_hint")


def test_tab_to_indent_is_a_kept_setting(page):
    open_page(page)
    page.uncheck("#tab-indents")
    assert page.inner_text("#editor-hint") == "Tab moves to the next control"
    page.evaluate("window.dagscope.setCode('x = 1\\n')")
    page.click(".cm-content")
    page.keyboard.press("Tab")                               # off: Tab moves on, nothing typed
    assert not in_editor(page) and code(page) == "x = 1\n"
    page.reload()
    page.wait_for_function("document.body.classList.contains('ready') && !window.dagscope.state.running")
    assert not page.is_checked("#tab-indents")             # kept across the reload
    page.click(".cm-content")
    page.keyboard.press("Tab")
    assert not in_editor(page)
    page.check("#tab-indents")
    page.click(".cm-content")
    page.keyboard.press("Control+Home")
    page.keyboard.press("Tab")
    assert in_editor(page) and code(page).startswith("  #")


def test_editor_hint_in_chinese_at_1024(page):
    page.set_viewport_size({"width": 1024, "height": 768})
    open_page(page, "/?lang=zh-CN")
    assert page.inner_text("#editor-hint") == "先按 Esc 再按 Tab 可离开编辑器"
    assert "Tab 键缩进" in page.inner_text(".editor-bar")
    page.uncheck("#tab-indents")
    assert page.inner_text("#editor-hint") == "Tab 键移到下一个控件"
    # the bar sits between the editor and the gallery, overlapping neither
    bar = page.locator(".editor-bar").bounding_box()
    ed = page.locator("#editor").bounding_box()
    gal = page.locator(".gallery").bounding_box()
    assert ed["y"] + ed["height"] <= bar["y"] + 1 and bar["y"] + bar["height"] <= gal["y"] + 1
    page.check("#tab-indents")
    shot(page, "zh-CN_editor_tab_hint_1024")
