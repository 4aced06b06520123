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


def _env_list(name: str, default: str) -> tuple:
    return tuple(item.strip() for item in os.environ.get(name, default).split(",") if item.strip())


@dataclass(frozen=True)
class Settings:
    data_dir: Path = field(default_factory=lambda: Path(os.environ.get("DAGSCOPE_DATA_DIR", ROOT / "data")))
    # The stores' database (app/services/database.py): empty is SQLite in the data folder;
    # postgresql://user:password@host/dbname is PostgreSQL, which replicas share (docs/deploy.md).
    database_url: str = field(default_factory=lambda: os.environ.get("DAGSCOPE_DATABASE_URL", ""))
    database_connections: int = field(default_factory=lambda: max(1, int(_env_float("DAGSCOPE_DATABASE_CONNECTIONS", 10))))
    run_timeout_s: float = field(default_factory=lambda: _env_float("DAGSCOPE_RUN_TIMEOUT", 10.0))
    run_memory_mb: int = field(default_factory=lambda: int(_env_float("DAGSCOPE_RUN_MEMORY_MB", 1024)))
    max_code_bytes: int = field(default_factory=lambda: int(_env_float("DAGSCOPE_MAX_CODE_BYTES", 100_000)))
    max_stdout_bytes: int = field(default_factory=lambda: int(_env_float("DAGSCOPE_MAX_STDOUT_BYTES", 200_000)))
    render_timeout_s: float = field(default_factory=lambda: _env_float("DAGSCOPE_RENDER_TIMEOUT", 10.0))
    # Drawings: see "Limits" in README.md. dot is CPU-bound, so about one drawing per core.
    render_slots: int = field(default_factory=lambda: max(1, int(_env_float(
        "DAGSCOPE_RENDER_SLOTS", os.cpu_count() or 1))))
    render_queue_wait_s: float = field(default_factory=lambda: _env_float("DAGSCOPE_RENDER_QUEUE_WAIT", 2.0))
    render_memory_mb: int = field(default_factory=lambda: int(_env_float("DAGSCOPE_RENDER_MEMORY_MB", 1024)))
    render_max_nodes: int = field(default_factory=lambda: int(_env_float("DAGSCOPE_RENDER_MAX_NODES", 2000)))
    render_max_edges: int = field(default_factory=lambda: int(_env_float("DAGSCOPE_RENDER_MAX_EDGES", 6000)))
    # A confined dot started in advance waits this long for a drawing (0: none; each drawing
    # starts its own): app/services/dot_process.py's Warm.
    render_warm_s: float = field(default_factory=lambda: _env_float("DAGSCOPE_RENDER_WARM", 60.0))
    # The sandbox and the classroom: see "Limits" in README.md for what each one means.
    max_record_bytes: int = field(default_factory=lambda: int(_env_float("DAGSCOPE_MAX_RECORD_BYTES", 8_000_000)))
    run_file_mb: int = field(default_factory=lambda: int(_env_float("DAGSCOPE_RUN_FILE_MB", 16)))
    run_scratch_mb: int = field(default_factory=lambda: int(_env_float("DAGSCOPE_RUN_SCRATCH_MB", 64)))
    run_open_files: int = field(default_factory=lambda: int(_env_float("DAGSCOPE_RUN_OPEN_FILES", 64)))
    run_processes: int = field(default_factory=lambda: int(_env_float("DAGSCOPE_RUN_PROCESSES", 512)))
    # Large tensors' values, sent apart from the record and kept for the page to fetch on a click
    # (app/services/tensors.py): at most this much per run (a copy in the run's memory), this much
    # for all runs together (least recently read first out), for this long.
    run_values_mb: float = field(default_factory=lambda: _env_float("DAGSCOPE_RUN_VALUES_MB", 128))
    tensor_store_mb: float = field(default_factory=lambda: _env_float("DAGSCOPE_TENSOR_STORE_MB", 1024))
    tensor_store_ttl_s: float = field(default_factory=lambda: _env_float("DAGSCOPE_TENSOR_STORE_TTL", 1800))
    # Files a run writes in its working folder, brought back for download (app/services/run_files.py):
    # at most this many and this much per run, this much in the store for all runs, for this long.
    run_files_max: int = field(default_factory=lambda: int(_env_float("DAGSCOPE_RUN_FILES", 20)))
    run_files_mb: float = field(default_factory=lambda: _env_float("DAGSCOPE_RUN_FILES_MB", 32))
    file_store_mb: float = field(default_factory=lambda: _env_float("DAGSCOPE_FILE_STORE_MB", 1024))
    file_store_ttl_s: float = field(default_factory=lambda: _env_float("DAGSCOPE_FILE_STORE_TTL", 7200))
    # memory | database; empty: the database when it is PostgreSQL (replicas share it), else memory
    tensor_store: str = field(default_factory=lambda: os.environ.get("DAGSCOPE_TENSOR_STORE", ""))
    tensor_store_sweep_s: float = field(default_factory=lambda: _env_float("DAGSCOPE_TENSOR_STORE_SWEEP", 60))
    # On SIGTERM the server finishes the runs it took for at most this long, then exits (docs/deploy.md)
    drain_timeout_s: float = field(default_factory=lambda: _env_float("DAGSCOPE_DRAIN_TIMEOUT", 60))
    workers: int = field(default_factory=lambda: max(1, int(_env_float("DAGSCOPE_WORKERS", os.cpu_count() or 1))))
    queue_limit: int = field(default_factory=lambda: int(_env_float("DAGSCOPE_QUEUE_LIMIT", 32)))
    background_runs: int = field(default_factory=lambda: int(_env_float(
        "DAGSCOPE_BACKGROUND_RUNS", max(4, 2 * (os.cpu_count() or 1)))))
    demote_after_s: float = field(default_factory=lambda: _env_float("DAGSCOPE_DEMOTE_AFTER", 1.0))
    runs_in_flight_per_client: int = field(default_factory=lambda: int(_env_float("DAGSCOPE_RUNS_PER_CLIENT", 1)))
    rate_per_min: float = field(default_factory=lambda: _env_float("DAGSCOPE_RATE_PER_MIN", 30))
    rate_burst: int = field(default_factory=lambda: int(_env_float("DAGSCOPE_RATE_BURST", 10)))
    # The server's own machine (the teacher, the browser tests) is not rate limited; students are.
    unlimited_clients: tuple = field(default_factory=lambda: _env_list("DAGSCOPE_UNLIMITED_CLIENTS", "127.0.0.1,::1"))
    max_body_bytes: int = field(default_factory=lambda: int(_env_float("DAGSCOPE_MAX_BODY_BYTES", 8_000_000)))
    access_token: str = field(default_factory=lambda: os.environ.get("DAGSCOPE_ACCESS_TOKEN", ""))
    # GET /metrics (app/routes/metrics.py): this Bearer token, or without one only this machine
    metrics_token: str = field(default_factory=lambda: os.environ.get("DAGSCOPE_METRICS_TOKEN", ""))
    # json: one JSON object per log line with the request id (app/logs.py); anything else: plain lines
    log_format: str = field(default_factory=lambda: os.environ.get("DAGSCOPE_LOG_FORMAT", "text"))
    # Who may frame the embed page (`?embed=1`, app/security_headers.py): origins, or 'self'
    embed_ancestors: tuple = field(default_factory=lambda: _env_list("DAGSCOPE_EMBED_ANCESTORS", "'self'"))
    # The HTTP surface (app/origin.py, app/middleware.py, app/server.py; README "Limits").
    serve_host: str = field(default_factory=lambda: os.environ.get("DAGSCOPE_HOST", ""))   # set by --host
    allowed_hosts: tuple = field(default_factory=lambda: _env_list("DAGSCOPE_ALLOWED_HOSTS", ""))
    snippet_rate_per_min: float = field(default_factory=lambda: _env_float("DAGSCOPE_SNIPPET_RATE_PER_MIN", 10))
    snippet_rate_burst: int = field(default_factory=lambda: int(_env_float("DAGSCOPE_SNIPPET_RATE_BURST", 5)))
    render_rate_per_min: float = field(default_factory=lambda: _env_float("DAGSCOPE_RENDER_RATE_PER_MIN", 120))
    render_rate_burst: int = field(default_factory=lambda: int(_env_float("DAGSCOPE_RENDER_RATE_BURST", 30)))
    write_rate_per_min: float = field(default_factory=lambda: _env_float("DAGSCOPE_WRITE_RATE_PER_MIN", 60))
    write_rate_burst: int = field(default_factory=lambda: int(_env_float("DAGSCOPE_WRITE_RATE_BURST", 20)))
    snippet_store_mb: float = field(default_factory=lambda: _env_float("DAGSCOPE_SNIPPET_STORE_MB", 256))
    header_timeout_s: float = field(default_factory=lambda: _env_float("DAGSCOPE_HEADER_TIMEOUT", 5.0))
    body_timeout_s: float = field(default_factory=lambda: _env_float("DAGSCOPE_BODY_TIMEOUT", 30.0))
    max_connections: int = field(default_factory=lambda: int(_env_float("DAGSCOPE_MAX_CONNECTIONS", 1000)))
    connections_per_client: int = field(default_factory=lambda: int(_env_float("DAGSCOPE_CONNECTIONS_PER_CLIENT", 64)))


def get_settings() -> Settings:
    return Settings()
