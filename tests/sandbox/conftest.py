"""Fixtures for sandbox tests: a quick run with small limits, and a check that nothing is left."""
import os
import time

import pytest

from app.sandbox import ZYGOTE, Limits, run_code

TEST_LIMITS = Limits(timeout_s=2.0, memory_mb=768, max_stdout_bytes=10_000, max_record_bytes=2_000_000)


def descendants(pid: int) -> list[int]:
    """Every live process below `pid` (zombies excluded), read from /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] != "Z":
            children.setdefault(int(fields[1]), []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


@pytest.fixture
def sandbox_run():
    ZYGOTE.ensure_started()

    def _run(code: str, limits: Limits = TEST_LIMITS, **options) -> dict:
        started = time.monotonic()
        record = run_code(code, options, limits)
        assert time.monotonic() - started < limits.timeout_s + 3, "the sandbox answered late"
        return record
    yield _run
    # Contained: no supervisor or child outlives its run, no scratch folder is left behind.
    deadline = time.monotonic() + 3
    while (descendants(ZYGOTE.pid) or os.listdir(ZYGOTE.scratch_base)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert descendants(ZYGOTE.pid) == []
    assert os.listdir(ZYGOTE.scratch_base) == []
