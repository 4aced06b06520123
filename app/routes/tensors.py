"""GET /api/runs/{run_id}/tensors/{tensor_id}: a run's tensor values, kept apart from its record.

`.../summary` answers the Tensor as the record would hold it (stats, preview, heat-map: what the
inspector draws); the bare path answers the values themselves, binary, as a .npy file. Both 404
with a reason once the values are no longer kept (app/services/tensors.py)."""
from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response

from app.middleware import client_address
from app.responses import SafeJSONResponse, worded
from app.services import tensors

router = APIRouter()


def _refused(gone: tensors.Gone) -> SafeJSONResponse:
    """404 with the reason; 429 for a client whose reads already wait for another replica's values."""
    return SafeJSONResponse(worded(str(gone), gone.key), status_code=gone.status,
                            headers={"Retry-After": "1"} if gone.status == 429 else None)


@router.get("/api/runs/{run_id}/tensors/{tensor_id}/summary")
async def tensor_summary(run_id: str, tensor_id: str, request: Request):
    try:
        found = await run_in_threadpool(tensors.summary, client_address(request.scope), run_id, tensor_id)
    except tensors.Gone as gone:
        return _refused(gone)
    return SafeJSONResponse(found, headers={"Cache-Control": "private, max-age=600"})


@router.get("/api/runs/{run_id}/tensors/{tensor_id}")
async def tensor_values(run_id: str, tensor_id: str, request: Request):
    try:
        body = await run_in_threadpool(tensors.npy, client_address(request.scope), run_id, tensor_id)
    except tensors.Gone as gone:
        return _refused(gone)
    return Response(body, media_type="application/octet-stream", headers={
        "Content-Disposition": f'attachment; filename="{tensor_id}.npy"', "Cache-Control": "private, max-age=600"})
