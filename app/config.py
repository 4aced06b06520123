"""Settings read once from the environment, with documented defaults."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _env_float(name: str, default: float) -> float:
    try:
        return float(os.environ.get(name, default))
    except ValueError:
        return default


@dataclass(frozen=True)
class Settings:
    data_dir: Path = field(default_factory=lambda: Path(os.environ.get("DAGSCOPE_DATA_DIR", ROOT / "data")))
    run_timeout_s: float = field(default_factory=lambda: _env_float("DAGSCOPE_RUN_TIMEOUT", 10.0))
    run_memory_mb: int = field(default_factory=lambda: int(_env_float("DAGSCOPE_RUN_MEMORY_MB", 1024)))
    max_code_bytes: int = field(default_factory=lambda: int(_env_float("DAGSCOPE_MAX_CODE_BYTES", 100_000)))
    max_stdout_bytes: int = field(default_factory=lambda: int(_env_float("DAGSCOPE_MAX_STDOUT_BYTES", 200_000)))
    render_timeout_s: float = field(default_factory=lambda: _env_float("DAGSCOPE_RENDER_TIMEOUT", 10.0))


def get_settings() -> Settings:
    return Settings()
