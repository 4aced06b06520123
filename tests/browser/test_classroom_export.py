"""Issue 17, item 6: Export takes exactly what the tab shows — on Static both the trace and the
script, the trace's frozen-branch marks written into the file; on Passes both panes with their
removed/added colours; PNG at twice the drawn size on white; DOT one graph per pane."""
import re
import struct
import zlib
from pathlib import Path

import pytest

from tests.browser.conftest import SHOTS, shot
from tests.browser.test_static_views import graph, open_trace_overlay

pytestmark = pytest.mark.browser
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def export(page, fmt) -> bytes:
    with page.expect_download() as info:
        page.click(f".export[data-format={fmt}]")
    return Path(info.value.path()).read_bytes()


def png_size_and_first_pixel(data: bytes):
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, color = header
    assert depth == 8 and color in (2, 6), header
    raw = zlib.decompress(idat)
    # a row's first pixel is stored as itself whatever the row's filter (its left and upper
    # neighbours are zero on the first row)
    return width, height, tuple(raw[1:1 + (4 if color == 6 else 3)])


def svg_size(text: str):
    m = re.search(r'<svg[^>]*?width="([\d.]+)"[^>]*?height="([\d.]+)"', text)
    return float(m.group(1)), float(m.group(2))


def test_static_exports_trace_and_script_with_the_frozen_mark(reused_page):
    page = reused_page()
    record = open_trace_overlay(page)
    traced = graph(record, capture="trace")
    page.wait_for_selector("#panel-static .ov-trace g.node.frozen")
    page.wait_for_selector("#panel-static .ov-script g.node")
    svg = export(page, "svg").decode()
    assert "<script" not in svg and svg.count("<svg") == 3, svg[:300]     # the frame and two panes
    trace_title, script_title = page.locator("#panel-static .ov-trace").evaluate("e => e.previousElementSibling.textContent"), \
        page.locator("#panel-static .ov-script").evaluate("e => e.previousElementSibling.textContent")
    assert svg.index(f">{trace_title}<") < svg.index(f">{script_title}<")
    frozen = traced["frozen"][0]["node"]
    node = re.search(rf'<g id="{re.escape(frozen)}"[^>]*>.*?</g>', svg, re.S).group(0)
    assert 'stroke-dasharray="5px, 3px"' in node, node
    assert "rgb(254, 226, 226)" in node                               # the frozen fill, as on screen
    # the legend on screen is in the file, in the page's words
    legend = page.locator("#panel-static .legend").first.evaluate("l => [...l.querySelectorAll('.sw')].map(s => s.parentElement.textContent.trim())")
    assert legend and all(f">{text}<" in svg for text in legend), legend
    png = export(page, "png")
    (SHOTS / "exported_static.png").write_bytes(png)      # the file itself, to look at
    width, height, first = png_size_and_first_pixel(png)
    w, h = svg_size(svg)
    assert (width, height) == (round(2 * w), round(2 * h))
    assert first[:3] == (255, 255, 255) and (len(first) == 3 or first[3] == 255), first
    dot = export(page, "dot").decode()
    assert dot.count("digraph") == 2 and dot.index(trace_title) < dot.index(script_title)
    shot(page, "export_static")


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_passes_export_keeps_removed_and_added_colours(reused_page, lang):
    page = reused_page(f"/?lang={lang}", size=(1280, 720))   # presenting hides Export: the room has no use for it
    page.evaluate("code => window.dagscope.setCode(code)", (EXAMPLES / "11_compile_fusion.py").read_text())
    page.evaluate("() => window.dagscope.run()")
    page.click("[data-tab=passes]")
    page.wait_for_selector("#panel-passes .pass-after g.node")
    marked = page.evaluate("""() => ({removed: document.querySelectorAll('#panel-passes .pass-before g.node.removed').length,
                                      added: document.querySelectorAll('#panel-passes .pass-after g.node.added, #panel-passes .pass-after g.node.changed').length})""")
    assert marked["removed"] or marked["added"], marked
    svg = export(page, "svg").decode()
    assert svg.count("<svg") == 3
    before, after = page.locator("#panel-passes .pass-graphs h4").all_text_contents()
    assert f">{before}<" in svg and f">{after}<" in svg
    if marked["removed"]:
        assert "rgb(254, 226, 226)" in svg                           # removed: red, dashed
    if marked["added"]:
        assert "rgb(220, 252, 231)" in svg or "rgb(254, 243, 199)" in svg
    png = export(page, "png")
    (SHOTS / f"exported_{lang}_passes.png").write_bytes(png)
    width, height, first = png_size_and_first_pixel(png)
    w, h = svg_size(svg)
    assert (width, height) == (round(2 * w), round(2 * h)) and first[:3] == (255, 255, 255)
    shot(page, "1280_passes_export" if lang == "en" else f"{lang}_1280_passes_export")


def test_step_exports_both_panes(reused_page):
    page = reused_page(size=(1024, 768))
    page.click("[data-tab=step]")
    page.wait_for_selector("#view-step-backward g.node.current")
    svg = export(page, "svg").decode()
    assert svg.count("<svg") == 3
    titles = page.locator(".panel[data-panel=step] .gv-title").all_text_contents()
    assert len(titles) == 2 and all(f">{title}<" in svg for title in titles), titles
    shot(page, "1024_step_export")
