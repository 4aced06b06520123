"""The request id enters the run's supervisor and comes back in its report: the server's log line for
the run's end is the supervisor's own account under that id (app/sandbox/zygote.py supervise); an id
the supervisor would not take is not echoed, and the server says so. The child never gets it."""
import logging

import pytest

from app.sandbox import Limits, run_code

TEST_LIMITS = Limits(timeout_s=5.0, memory_mb=768, max_stdout_bytes=10_000, max_record_bytes=2_000_000)


@pytest.fixture
def sandbox_lines(sandbox_run):
    lines = []

    class Keep(logging.Handler):
        def emit(self, record):
            lines.append(record)
    logger, handler = logging.getLogger("dagscope.runs.sandbox"), Keep()
    logger.addHandler(handler)
    old = logger.level
    logger.setLevel(logging.INFO)
    yield lines
    logger.removeHandler(handler)
    logger.setLevel(old)


def test_the_supervisor_echoes_the_request_id(sandbox_lines):
    record = run_code("import sys\nprint(sorted(k for k in globals() if 'request' in k))", {}, TEST_LIMITS,
                      request_id="lesson-7.abc123")
    assert record["ok"] and record["stdout"] == "[]\n"
    [line] = sandbox_lines
    assert line.getMessage().startswith("sandbox finished: exit 0") and line.request_id == "lesson-7.abc123"


def test_an_id_the_supervisor_refuses_is_not_echoed(sandbox_lines):
    run_code("print(1)", {}, TEST_LIMITS, request_id="bad id\nwith a newline")
    warning, finished = sandbox_lines
    assert warning.levelno == logging.WARNING and "None" in warning.getMessage()
    assert finished.request_id == "bad id\nwith a newline"        # the server's own id still names its line
