"""Fixtures for sandbox tests: a quick run with small limits, and a check that nothing is left."""
import os
import time

import pytest

from app.sandbox import ZYGOTE, Limits, run_code
from proc_tree import descendants

TEST_LIMITS = Limits(timeout_s=2.0, memory_mb=768, max_stdout_bytes=10_000, max_record_bytes=2_000_000)


@pytest.fixture
def sandbox_run():
    ZYGOTE.ensure_started()

    def _run(code: str, limits: Limits = TEST_LIMITS, **options) -> dict:
        started = time.monotonic()
        record = run_code(code, options, limits)
        assert time.monotonic() - started < limits.timeout_s + 3, "the sandbox answered late"
        return record
    yield _run
    # Contained: no supervisor or child outlives its run, no scratch folder is left behind. Polled until
    # clean (at once on an idle machine); the bound is generous, as reaping can lag on a loaded CI machine.
    deadline = time.monotonic() + 15
    while (descendants(ZYGOTE.pid) or os.listdir(ZYGOTE.scratch_base)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert descendants(ZYGOTE.pid) == []
    assert os.listdir(ZYGOTE.scratch_base) == []
