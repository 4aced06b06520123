"""POST /api/run: run pasted code in the sandbox and return its run record; POST /api/run/stop:
end the caller's own run under the stop key it sent with it (app/services/runs.py)."""
import asyncio

from fastapi import APIRouter, Request

from app.config import get_settings
from app.middleware import client_address
from app.responses import SafeJSONResponse, worded
from app.schemas import RunRequest, StopRequest
from app.services import runs
from app.sandbox.runner import RUN_PHASES
from app.services.dot_process import WARM

router = APIRouter()


@router.post("/api/run")
async def run_code(req: RunRequest, request: Request):
    limit = get_settings().max_code_bytes
    if len(req.code.encode("utf-8", "surrogatepass")) > limit:
        return SafeJSONResponse(worded(f"code is longer than {limit} bytes", "code_too_long", bytes=limit),
                                status_code=413)
    try:
        timing: dict = {}
        future = runs.submit(client_address(request.scope), req.code, req.options.model_dump(), req.stop_key,
                             timing=timing)
    except runs.KeyInUse as taken:
        return SafeJSONResponse(worded(str(taken), "stop_key_in_use"), status_code=409)
    except runs.Busy as busy:
        return SafeJSONResponse(worded(busy.message, busy.key, **busy.params), status_code=busy.status,
                            headers={"Retry-After": str(busy.retry_after)})
    # the page asks for its drawings once the record is in: a dot waits for them meanwhile
    WARM.prepare()
    # The run waits in its own thread pool; the event loop stays free for /healthz and pages.
    record = await asyncio.wrap_future(future)
    # Straight to JSON: the child already wrote it with allow_nan=False, and FastAPI's
    # jsonable_encoder would walk a megabyte record value by value (~4x slower).
    return SafeJSONResponse(record, headers={"Server-Timing": server_timing(timing)})


def server_timing(timing: dict) -> str:
    """Where the run's time went (runs.submit's `timing`, seconds), as Server-Timing in
    milliseconds, in the order it passed: the page's timing and bench/page.py read it."""
    order = ("queue", *RUN_PHASES)
    return ", ".join(f"{name};dur={timing[name] * 1000:.1f}" for name in order if name in timing)


@router.post("/api/run/stop")
async def stop_run(req: StopRequest, request: Request):
    if not runs.stop(client_address(request.scope), req.stop_key):
        return SafeJSONResponse(worded("no run of yours is going under this stop key", "no_run_to_stop"), status_code=404)
    return SafeJSONResponse({"stopped": True})
