"""POST /api/run: run pasted code in the sandbox and return its run record."""
import asyncio
import json

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from app.config import get_settings
from app.middleware import client_address
from app.schemas import RunRequest
from app.services import runs

router = APIRouter()
MAX_OPTIONS_BYTES = 10_000   # options are a handful of switches, never data


@router.post("/api/run")
async def run_code(req: RunRequest, request: Request):
    limit = get_settings().max_code_bytes
    if len(req.code.encode("utf-8", "surrogatepass")) > limit:
        return JSONResponse({"detail": f"code is longer than {limit} bytes"}, status_code=413)
    if len(json.dumps(req.options)) > MAX_OPTIONS_BYTES:
        return JSONResponse({"detail": f"options are longer than {MAX_OPTIONS_BYTES} bytes"}, status_code=413)
    try:
        future = runs.submit(client_address(request.scope), req.code, req.options)
    except runs.Busy as busy:
        return JSONResponse({"detail": busy.message}, status_code=429,
                            headers={"Retry-After": str(busy.retry_after)})
    # The run waits in its own thread pool; the event loop stays free for /healthz and pages.
    return await asyncio.wrap_future(future)
