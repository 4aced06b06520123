"""The wall-clock limit ends a program as Stop does (app/sandbox/runner.py): first a
KeyboardInterrupt at its current line, so its record keeps what it printed, then — only if it
has not ended TIMEOUT_GRACE_S later — the kill. Either way the run is a `timeout` naming the limit."""
import time

from app.sandbox.runner import TIMEOUT_GRACE_S

PRINTS_THEN_LOOPS = ("import sys, torch\nx = torch.ones(2, requires_grad=True)\n(x * 3).sum().backward()\n"
                     "for i in range(3):\n    print('epoch', i, flush=True)\nprint('warned', file=sys.stderr)\n"
                     "while True:\n    pass\n")


def test_a_timed_out_program_keeps_what_it_printed(sandbox_run):
    record = sandbox_run(PRINTS_THEN_LOOPS)
    assert record["ok"] is False
    assert record["error"]["kind"] == "timeout" and record["error"]["message"] == "stopped after 2 s"
    assert record["stdout"] == "epoch 0\nepoch 1\nepoch 2\n" and record["stderr"] == "warned\n"
    assert len(record["graphs"]) == 1           # and the graph it recorded before the limit


def test_a_program_that_swallows_the_interrupt_is_killed_after_the_grace(sandbox_run):
    code = ("print('before', flush=True)\nwhile True:\n    try:\n        while True:\n            pass\n"
            "    except KeyboardInterrupt:\n        pass\n")
    started = time.monotonic()
    record = sandbox_run(code)
    took = time.monotonic() - started
    assert record["error"]["kind"] == "timeout" and record["error"]["message"] == "stopped after 2 s"
    # killed, so nothing it wrote is whole; at the limit plus the grace (the fixture bounds the
    # answer at the limit + 3 s; at least the grace shows it was given its chance)
    assert record["stdout"] == ""
    assert took >= 2 + TIMEOUT_GRACE_S - 0.1


def test_a_sleeping_program_is_interrupted_too(sandbox_run):
    record = sandbox_run("import time\nprint('waiting', flush=True)\ntime.sleep(100)\n")
    assert record["error"]["kind"] == "timeout" and record["stdout"] == "waiting\n"
