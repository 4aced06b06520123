"""The Output tab shows stdout and stderr (warnings, sys.stderr) interleaved in the order written,
stderr in its own colour, a warning's `<dagscope>:N` linked to line N; in both languages."""
import pytest

from tests.browser.conftest import open_page, shot
from tests.browser.test_zh_tour import english_left, to_zh

pytestmark = pytest.mark.browser

CODE = """import sys
import warnings
import torch
x = torch.ones(2, 3, 4)
print("before:", x.shape)
y = x.T
print("after:", y.shape)
p = torch.nn.functional.softmax(torch.tensor([1.0, 3.0]))
print(p)
warnings.warn("learning rate looks large")
print("epoch 1 done", file=sys.stderr)
print("finished")
"""


def js(page, body):
    return page.evaluate(f"async () => {{ {body} }}")


def stream_pieces(page):
    return page.eval_on_selector_all("#panel-output pre.stdout > span",
                                      "els => els.map(e => [e.dataset.stream, e.textContent])")


def test_output_interleaves_stdout_and_stderr_in_order(page):
    open_page(page)
    page.evaluate("c => window.dagscope.setCode(c)", CODE)
    record = page.evaluate("() => window.dagscope.run()")
    assert record["ok"] and record["stdout"].startswith("before: torch.Size([2, 3, 4])\nafter:")
    assert "Warning" not in record["stdout"]
    page.evaluate("window.dagscope.select('output')")
    pieces = stream_pieces(page)
    assert [s for s, _ in pieces] == ["stdout", "stderr", "stdout", "stderr", "stdout", "stderr", "stdout"]
    assert pieces[1][1].startswith("<dagscope>:6: UserWarning: The use of `x.T`")
    assert pieces[5][1].endswith("epoch 1 done\n") and pieces[6][1] == "finished\n"
    assert "".join(t for s, t in pieces if s == "stdout") == record["stdout"]
    assert "".join(t for s, t in pieces if s == "stderr") == record["stderr"]
    colours = page.eval_on_selector_all("#panel-output pre.stdout > span",
                                        "els => els.map(e => getComputedStyle(e).color)")
    assert colours[0] != colours[1] and colours[1] == colours[3] and colours[0] == colours[2]
    assert page.is_visible("#panel-output .stream-legend")
    # a warning's location is a link to the user's line
    page.click("#panel-output .stream-stderr a.jump-line[data-line='8']")
    page.wait_for_function("document.querySelector('.cm-activeLine')?.textContent.startsWith('p = torch.nn')")
    shot(page, "output_stderr")
    to_zh(page)
    page.evaluate("window.dagscope.select('output')")
    assert english_left(page, "output") == []
    assert "警告和写到 sys.stderr 的内容" in page.inner_text("#panel-output .stream-legend")
    shot(page, "zh-CN_output_stderr")
    page.click("#present")                       # projector mode: stderr stays apart and legible
    page.wait_for_function("document.body.classList.contains('present')")
    assert page.eval_on_selector("#panel-output .stream-stderr", "e => getComputedStyle(e).fontWeight") == "600"
    shot(page, "zh-CN_output_stderr_present")


def test_a_run_without_stderr_has_no_legend(reused_page):
    page = reused_page()
    page.evaluate("c => window.dagscope.setCode(c)", "print('only stdout')")
    page.evaluate("() => window.dagscope.run()")
    page.evaluate("window.dagscope.select('output')")
    assert stream_pieces(page) == [["stdout", "only stdout\n"]]
    assert not page.query_selector("#panel-output .stream-legend")


def test_interleave_counts_python_characters_and_survives_odd_records(reused_page):
    page = reused_page()
    out = js(page, """const m = await import('/static/js/output.js');
        return [
          m.interleaveOutput({stdout: '😀a\\nb\\n', stderr: 'w😀\\n', output_order: [['stdout', 3], ['stderr', 3], ['stdout', 2]]}),
          m.interleaveOutput({stdout: 'old\\n'}),
          m.interleaveOutput({stdout: 'ab', stderr: 'cd', output_order: [['stdout', 1], ['bogus', 5], 'x', ['stderr', -2]]}),
          m.interleaveOutput({stdout: 'ab', stderr: 'cd', output_order: [['stdout', 1], ['stderr', 1], ['stdout', 1]]}),
          m.interleaveOutput({stdout: '', stderr: '', output_order: []}),
        ];""")
    assert out == [
        [["stdout", "😀a\n"], ["stderr", "w😀\n"], ["stdout", "b\n"]],
        [["stdout", "old\n"]],
        [["stdout", "ab"], ["stderr", "cd"]],                      # unlisted text follows, stdout first
        [["stdout", "a"], ["stderr", "c"], ["stdout", "b"], ["stderr", "d"]],
        [],
    ]


def test_warning_lines_for_the_editor_marks(reused_page):
    page = reused_page()
    out = js(page, """const m = await import('/static/js/output.js');
        return [m.stderrWarningLines({stderr: '<dagscope>:6: UserWarning: a\\n  y = x.T\\n<dagscope>:8: TracerWarning: b\\n'
                                              + '  <dagscope>:9: UserWarning: not at a line start\\n<dagscope>:6: UserWarning: c\\n'}),
                m.stderrWarningLines({stderr: 'progress <dagscope>:3: x\\n'}), m.stderrWarningLines({})];""")
    assert out == [[6, 8], [], []]
