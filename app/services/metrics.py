"""The server's Prometheus instruments (prometheus-client), served by GET /metrics
(app/routes/metrics.py). Each replica counts its own; Prometheus scrapes each one and sums.

- dagscope_runs_total{outcome}: finished runs by outcome (`ok` or the record's error kind), and
  `refused` for runs not admitted (busy, draining);
- dagscope_run_duration_seconds: a run's wall time in the sandbox (the record's elapsed_ms);
- dagscope_run_queue_depth / dagscope_runs_running: runs waiting for a core / holding one now;
- dagscope_sandbox_kills_total{reason}: runs the sandbox ended for a limit or a refusal
  (timeout, memory_limit, output_limit, security_violation) or for their owner's Stop (stopped);
- dagscope_render_seconds{route}: how long drawing requests took (/api/render, /api/render/batch);
- dagscope_store_bytes{store}: what the stores hold (snippets and run files: read from the
  database when scraped; tensor values: what this replica holds in memory).
"""
from __future__ import annotations

import time

from prometheus_client import Counter, Gauge, Histogram

OUTCOMES = frozenset({"ok", "syntax_error", "runtime_error", "unsupported", "security_violation", "output_limit",
                      "memory_limit", "timeout", "stopped", "internal_error"})
KILLS = frozenset({"timeout", "memory_limit", "output_limit", "security_violation", "stopped"})
RENDER_ROUTES = ("/api/render", "/api/render/batch")

RUNS = Counter("dagscope_runs", "Finished runs by outcome (ok or the error kind; refused: not admitted)",
               ["outcome"])
RUN_SECONDS = Histogram("dagscope_run_duration_seconds", "A run's wall time in the sandbox",
                        buckets=(0.1, 0.25, 0.5, 1, 2, 3, 5, 7.5, 10, 15, 30, 60))
QUEUE_DEPTH = Gauge("dagscope_run_queue_depth", "Admitted runs waiting for a core")
RUNNING = Gauge("dagscope_runs_running", "Runs holding a core or a background slot")
KILLED = Counter("dagscope_sandbox_kills", "Runs the sandbox ended, by reason", ["reason"])
RENDER_SECONDS = Histogram("dagscope_render_seconds", "Drawing requests' time, answer included", ["route"],
                           buckets=(0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 16))
STORE_BYTES = Gauge("dagscope_store_bytes", "Bytes the stores hold", ["store"])


def observe_run(record: dict) -> None:
    error = record.get("error") or {}
    kind = "ok" if record.get("ok") else error.get("kind") if error.get("kind") in OUTCOMES else "internal_error"
    RUNS.labels(kind).inc()
    RUN_SECONDS.observe(max(0.0, float(record.get("elapsed_ms") or 0) / 1000))
    if kind in KILLS:
        KILLED.labels(kind).inc()


def refused() -> None:
    RUNS.labels("refused").inc()


def watch_scheduler(status) -> None:
    """Read the queue's gauges from `status()` (the run scheduler's) when scraped."""
    QUEUE_DEPTH.set_function(lambda: status()["waiting"])
    RUNNING.set_function(lambda: (lambda s: s["running"] + s["background"])(status()))


class RenderTimer:
    """ASGI middleware: the drawing routes' time into dagscope_render_seconds."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["path"] not in RENDER_ROUTES:
            return await self.app(scope, receive, send)
        started = time.perf_counter()
        try:
            await self.app(scope, receive, send)
        finally:
            RENDER_SECONDS.labels(scope["path"]).observe(time.perf_counter() - started)
