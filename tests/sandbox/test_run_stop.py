"""RunControl.stop(): a running program's sandboxed processes are killed at once, the run answers
`stopped` well before its clock would; a stop before the run starts keeps it from starting."""
import os
import threading
import time

import pytest

from app.sandbox import ZYGOTE, Limits, RunControl, run_code
from proc_tree import descendants

LONG = Limits(timeout_s=30.0, memory_mb=768, max_stdout_bytes=10_000, max_record_bytes=2_000_000)
FOREVER = "import time\nprint('started', flush=True)\nwhile True:\n    time.sleep(0.01)\n"


def _children_of_zygote(at_least: int, timeout: float = 20.0) -> list[int]:
    deadline = time.monotonic() + timeout
    while len(found := descendants(ZYGOTE.pid)) < at_least:
        assert time.monotonic() < deadline, "the run's processes never appeared"
        time.sleep(0.02)
    return found


def test_stop_kills_the_running_program_and_answers_stopped(sandbox_run):   # sandbox_run: nothing left after
    ZYGOTE.ensure_started()
    control, out = RunControl(), {}
    runner = threading.Thread(target=lambda: out.update(record=run_code(FOREVER, {}, LONG, control=control)))
    started = time.monotonic()
    runner.start()
    running = _children_of_zygote(2)         # its supervisor and the program
    control.stop()
    runner.join(timeout=15)
    assert not runner.is_alive(), "the stopped run did not answer"
    assert time.monotonic() - started < 15      # not the 30 s clock
    record = out["record"]
    assert record["ok"] is False and record["error"]["kind"] == "stopped"
    assert record["error"]["message"].startswith("stopped by its owner after ")
    deadline = time.monotonic() + 10
    while set(running) & set(descendants(ZYGOTE.pid)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not set(running) & set(descendants(ZYGOTE.pid))


def test_a_run_stopped_before_it_started_never_runs():
    control = RunControl()
    control.stop()
    started = time.monotonic()
    record = run_code("print('ran')\n", {}, LONG, control=control)
    assert record["error"]["kind"] == "stopped" and record["stdout"] == ""
    assert time.monotonic() - started < 1


def test_a_stop_after_the_run_ended_changes_nothing(sandbox_run):
    control = RunControl()
    record = run_code("print('done')\n", {}, LONG, control=control)
    control.stop()                            # nothing to kill: the pid is no longer the run's
    assert record["ok"] and record["stdout"] == "done\n"
    assert control._pid is None


def test_a_stopped_run_keeps_what_it_printed(sandbox_run):
    """Stop ends the program as Ctrl+C does (KeyboardInterrupt at its line): its record still has
    what it printed, in order, and the graph it recorded; the run is `stopped`, not an error of its own."""
    ZYGOTE.ensure_started()
    code = ("import sys, time, torch\nx = torch.ones(2, requires_grad=True)\n(x * 3).sum().backward()\n"
            "for i in range(3):\n    print('step', i)\nprint('warned', file=sys.stderr)\n"
            "while True:\n    time.sleep(0.01)\n")
    control, out = RunControl(), {}
    runner = threading.Thread(target=lambda: out.update(record=run_code(code, {}, LONG, control=control)))
    runner.start()
    _children_of_zygote(2)
    time.sleep(1.0)                          # (the program prints within ms of starting; 1 s at load)
    control.stop()
    runner.join(timeout=15)
    record = out["record"]
    assert record["error"]["kind"] == "stopped" and record["ok"] is False
    assert record["stdout"] == "step 0\nstep 1\nstep 2\n" and record["stderr"] == "warned\n"
    assert [kind for kind, _ in record["output_order"]] == ["stdout", "stderr"]
    assert len(record["graphs"]) == 1


def test_a_program_that_swallows_the_interrupt_is_killed_after_the_grace(sandbox_run):
    ZYGOTE.ensure_started()
    code = ("import time\nprint('stubborn')\nwhile True:\n    try:\n        time.sleep(0.01)\n"
            "    except KeyboardInterrupt:\n        pass\n")
    control, out = RunControl(grace_s=0.5), {}
    runner = threading.Thread(target=lambda: out.update(record=run_code(code, {}, LONG, control=control)))
    started = time.monotonic()
    runner.start()
    _children_of_zygote(2)
    control.stop()
    runner.join(timeout=15)
    assert time.monotonic() - started < 15
    assert out["record"]["error"]["kind"] == "stopped"


@pytest.mark.skipif(os.geteuid() != 0, reason="seeing into the run's folder through /proc needs root")
def test_a_stopped_runs_files_still_come_back(sandbox_run):
    """Killed after the grace, the run's record is only `stopped`; the files it wrote are the
    supervisor's to collect all the same (app/sandbox/run_files.py)."""
    import dataclasses
    ZYGOTE.ensure_started()
    code = ("import time\nopen('partial.txt', 'w').write('half')\nprint('stubborn')\nwhile True:\n    try:\n"
            "        time.sleep(0.01)\n    except KeyboardInterrupt:\n        pass\n")
    limits = dataclasses.replace(LONG, max_files=5, max_files_bytes=1000)
    control, out, kept = RunControl(grace_s=0.3), {}, {}

    def keep(index, blobs, deadline):
        kept.update(blobs=blobs)
        return {"files": [{"name": entry["name"]} for entry in index["files"]], "files_note": None}
    runner = threading.Thread(target=lambda: out.update(
        record=run_code(code, {}, limits, control=control, keep_files=keep)))
    runner.start()
    deadline = time.monotonic() + 20
    # stopped once its file is there (the host's root sees into the run's folder through /proc)
    while not any(os.path.exists(f"/proc/{pid}/cwd/partial.txt") for pid in _children_of_zygote(2)):
        assert time.monotonic() < deadline, "the program never wrote its file"
        time.sleep(0.02)
    control.stop()
    runner.join(timeout=15)
    assert out["record"]["error"]["kind"] == "stopped"
    assert out["record"]["files"] == [{"name": "partial.txt"}] and kept["blobs"] == [b"half"]
