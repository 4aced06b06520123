"""The periodic job that deletes what has expired from the stores (tensor values, run files),
so that no request pays for it. Started with the app (app/main.py), every
DAGSCOPE_TENSOR_STORE_SWEEP seconds; each replica runs it, and a sweep finding nothing costs an
indexed look-up per store. A read never answers an expired item, swept or not."""
from __future__ import annotations

import asyncio
import logging

from fastapi.concurrency import run_in_threadpool

from app.config import get_settings
from app.services import database, rate_buckets, run_files, runs, tensors

log = logging.getLogger("dagscope.expiry")


def sweep() -> dict:
    """Expire every store once; how many items each dropped."""
    swept = {"tensor_runs": tensors.store().expire(), "run_files": run_files.store().expire()}
    relay = runs.current_relay()
    if relay is not None:
        swept["stop_keys"] = relay.sweep()
    db = database.database()
    if db.shared:
        swept["rate_buckets"] = rate_buckets.sweep(db)
    return swept


async def expire_periodically() -> None:
    while True:
        await asyncio.sleep(max(1.0, get_settings().tensor_store_sweep_s))
        try:
            await run_in_threadpool(sweep)
        except Exception:                       # noqa: BLE001 — a database hiccup: try again next time
            log.exception("expiring the stores failed")
