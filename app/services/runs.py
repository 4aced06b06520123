"""The run service: the one place the web app asks for user code to be run."""
from __future__ import annotations

from app.config import get_settings
from app.sandbox import Limits, run_code


def default_limits() -> Limits:
    s = get_settings()
    return Limits(timeout_s=s.run_timeout_s, memory_mb=s.run_memory_mb, max_stdout_bytes=s.max_stdout_bytes)


def run(code: str, options: dict) -> dict:
    return run_code(code, options, default_limits())
