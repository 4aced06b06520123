"""The Output tab lists the files a run wrote in its working folder, each a download link (issue
19); names are the run's and stay text; a record's entry that is not what the server writes (a
loaded record may hold anything) is not a link; in both languages."""
import pytest

from tests.browser.conftest import shot
from tests.browser.test_zh_tour import to_zh

pytestmark = pytest.mark.browser

CODE = """import numpy as np
np.save("weights.npy", np.arange(4, dtype=np.float32))
open("<b>bold<b>.txt", "w").write("hello")
import os
os.symlink("/etc/passwd", "passwd")
print("saved")
"""
HOSTILE = [{"name": "<img src=x onerror=window.__pwned=1>", "size": 1, "sha256": "0" * 64,
            "url": "javascript:window.__pwned=1"},
           {"name": "elsewhere", "size": 1, "sha256": "0" * 64, "url": "//evil.example/x"},
           {"name": "good.bin", "size": 3, "sha256": "a" * 64, "url": "/api/files/" + "A" * 24}]


def listed(page):
    return page.eval_on_selector_all("#panel-output .run-file a.file-download",
                                      "els => els.map(e => [e.textContent, e.getAttribute('href'), e.getAttribute('download')])")


def test_the_files_a_run_wrote_are_download_links(reused_page):
    page = reused_page()
    page.evaluate("c => window.dagscope.setCode(c)", CODE)
    record = page.evaluate("() => window.dagscope.run()")
    assert record["stdout"] == "saved\n" and len(record["files"]) == 2, record["error"]
    page.evaluate("window.dagscope.select('output')")
    links = listed(page)
    assert [name for name, _, _ in links] == ["<b>bold<b>.txt", "weights.npy"]
    assert all(href.startswith("/api/files/") for _, href, _ in links)
    assert page.locator("#panel-output .run-file b").count() == 0           # the name is text
    assert "passwd (not a regular file (a symbolic link))" in page.inner_text("#panel-output .files-note")
    with page.expect_download() as download:
        page.click("#panel-output a.file-download >> text=weights.npy")
    assert download.value.suggested_filename == "weights.npy"
    with open(download.value.path(), "rb") as f:
        assert f.read(6) == b"\x93NUMPY"
    shot(page, "output_files")
    to_zh(page)
    page.evaluate("window.dagscope.select('output')")
    assert page.inner_text("#panel-output h3 >> nth=1") == "程序写出的文件"
    assert "未取回的文件" in page.inner_text("#panel-output .files-note")


def test_a_loaded_records_files_are_links_only_where_the_server_would_make_them(reused_page):
    page = reused_page()
    page.evaluate("async (files) => { const r = structuredClone(window.dagscope.state.record);"
                  " r.files = files; r.files_note = '<i>note</i>'; await window.dagscope.load(r);"
                  " await window.dagscope.select('output'); }", HOSTILE)
    assert listed(page) == [["good.bin", "/api/files/" + "A" * 24, "good.bin"]]
    assert page.locator("#panel-output .files-note i").count() == 0
    assert "<i>note</i>" in page.inner_text("#panel-output .files-note")
    assert page.evaluate("window.__pwned") is None
