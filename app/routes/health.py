"""GET /healthz: the process answers (liveness), at once, even while every sandbox worker is busy.
GET /readyz: this replica should get requests (readiness): its database answers, its sandbox
pool (the zygote) is up, and it is not draining for a shutdown; 503 with what is not."""
import asyncio
import logging

from fastapi import APIRouter
from fastapi.concurrency import run_in_threadpool

from app.responses import SafeJSONResponse
from app.sandbox import ZYGOTE
from app.services import database, runs

router = APIRouter()
log = logging.getLogger("dagscope.health")
DATABASE_CHECK_TIMEOUT_S = 2.0


@router.get("/healthz")
async def healthz() -> dict:
    # async and free of locks: it runs on the event loop, never waiting for a thread or a run.
    return {"status": "ok"}


@router.get("/readyz", include_in_schema=False)
async def readyz():
    checks = {"draining": "no" if not runs.draining() else "yes: finishing its runs before it stops"}
    try:
        await asyncio.wait_for(run_in_threadpool(lambda: database.database().check()), DATABASE_CHECK_TIMEOUT_S)
        checks["database"] = "ok"
    except asyncio.TimeoutError:
        checks["database"] = f"no answer within {DATABASE_CHECK_TIMEOUT_S:g} s"
    except Exception as exc:                      # noqa: BLE001 — any failure means not ready
        # the details (host names, ports) go to the log, not to whoever asks
        log.warning("readiness: the database check failed: %s", exc)
        checks["database"] = f"failed ({type(exc).__name__})"
    checks["sandbox"] = "ok" if ZYGOTE.alive else "the sandbox pool (zygote) is not running"
    ready = checks["database"] == "ok" and checks["sandbox"] == "ok" and not runs.draining()
    return SafeJSONResponse({"status": "ready" if ready else "not ready", **checks}, status_code=200 if ready else 503)
