"""stderr through the sandbox: warnings and sys.stderr writes arrive apart from stdout, in order,
bounded by the output limit; the parent does not believe a malformed output_order."""
import json

from app.sandbox.limits import Limits
from app.sandbox.outcome import judge
from app.sandbox.protocol import frame

WARN_THEN_PRINT = "import torch\nx = torch.ones(2, 3, 4)\ny = x.T\nprint(y.shape)"


def test_a_warning_arrives_on_stderr_not_stdout(sandbox_run):
    record = sandbox_run(WARN_THEN_PRINT)
    assert record["ok"] and record["stdout"] == "torch.Size([4, 3, 2])\n"
    assert record["stderr"].startswith("<dagscope>:3: UserWarning: The use of `x.T`")
    assert record["stderr"].endswith("\n  y = x.T\n")
    assert record["output_order"] == [["stderr", len(record["stderr"])], ["stdout", len(record["stdout"])]]


def test_logging_goes_to_stderr_in_order(sandbox_run):
    record = sandbox_run("import logging\nprint('a')\nlogging.warning('careful')\nprint('b')")
    assert record["stdout"] == "a\nb\n" and record["stderr"] == "WARNING:root:careful\n"
    assert record["output_order"] == [["stdout", 2], ["stderr", 21], ["stdout", 2]]
    record = sandbox_run("import logging\nlogging.basicConfig(level=logging.INFO, format='%(levelname)s %(message)s')\n"
                         "logging.info('step 1')")
    assert record["ok"] and record["stderr"] == "INFO step 1\n"


def test_a_warning_flood_hits_the_output_limit(sandbox_run):
    record = sandbox_run("import warnings\nfor i in range(200_000):\n    warnings.warn('w' * 50 + str(i))\nprint('end')")
    assert record["error"]["kind"] == "output_limit", record["error"]
    assert "stderr" in record["error"]["message"] and record["stdout"] == "end\n"
    assert "truncated" in record["stderr"] and len(record["stderr"]) < 11_000


def test_a_stderr_flood_of_one_huge_write_hits_the_output_limit(sandbox_run):
    record = sandbox_run("import sys\nsys.stderr.write('x' * 50_000_000)\nprint('end')")
    assert record["error"]["kind"] == "output_limit" and len(record["stderr"]) < 11_000
    assert len(json.dumps(record)) < 100_000


def _judged(child_record: dict) -> dict:
    report = {"exit_code": 0, "cpu_s": 0.1, "maxrss_kb": 1000}
    return judge(report, frame(json.dumps(child_record).encode()), False, Limits(), 5.0)


def test_the_parent_drops_an_output_order_that_does_not_fit_the_text():
    base = {"ok": True, "stdout": "hi\n", "stderr": "w\n", "error": None, "graphs": []}
    good = _judged({**base, "output_order": [["stderr", 2], ["stdout", 3]]})
    assert good["output_order"] == [["stderr", 2], ["stdout", 3]]
    for bogus in ([["stdout", 4]], [["stdin", 1]], [["stdout", -1]], [["stdout", True]], [[1, 2, 3]], "x"):
        assert _judged({**base, "output_order": bogus})["output_order"] == []


def test_a_record_without_stderr_gets_an_empty_one():
    record = _judged({"ok": True, "stdout": "hi\n", "error": None, "graphs": []})
    assert record["stderr"] == "" and record["output_order"] == []


def test_standard_modules_a_lesson_imports_are_loaded_in_advance(sandbox_run):
    record = sandbox_run("import timeit, pprint, string\nprint(timeit.timeit('1 + 1', number=10) >= 0)\n"
                         "pprint.pprint({'a': 1})\nprint(string.ascii_lowercase[:3])")
    assert record["ok"] and record["stdout"] == "True\n{'a': 1}\nabc\n"
