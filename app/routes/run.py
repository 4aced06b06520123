"""POST /api/run: run pasted code in the sandbox and return its run record."""
from fastapi import APIRouter
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse

from app.config import get_settings
from app.schemas import RunRequest
from app.services import runs

router = APIRouter()


@router.post("/api/run")
async def run_code(req: RunRequest):
    limit = get_settings().max_code_bytes
    if len(req.code.encode()) > limit:
        return JSONResponse({"detail": f"code is longer than {limit} bytes"}, status_code=413)
    return await run_in_threadpool(runs.run, req.code, req.options)
