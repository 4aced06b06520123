"""GET /api/runs/{run_id}/tensors/{tensor_id}: a run's tensor values, kept apart from its record.

`.../summary` answers the Tensor as the record would hold it (stats, preview, heat-map: what the
inspector draws); the bare path answers the values themselves, binary, as a .npy file. Both 404
with a reason once the values are no longer kept (app/services/tensors.py).

GETs are not rate limited, and one costs memory in proportion to its tensor: a 128 MB tensor's
summary took ~550 MB for a second, and its .npy was built whole (144 MB) for each request and
held while it was read. So the values are streamed from the kept bytes, and a client's requests
are served two at a time and everyone's four at a time (Turns); the rest wait their turn on the
event loop, holding no thread, at most TURN_WAIT_S, and are then answered 429."""
from __future__ import annotations

import asyncio
import collections
import contextlib

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response, StreamingResponse

from app.middleware import client_address
from app.responses import SafeJSONResponse, worded
from app.services import tensors

router = APIRouter()
CHUNK = 1 << 20
TURN_WAIT_S = 10.0


class Turns:
    """Tensor requests served at once: `per_client` of one client's, `at_once` of everyone's."""

    def __init__(self, per_client: int = 2, at_once: int = 4, wait_s: float = TURN_WAIT_S):
        self.per_client, self.at_once, self.wait_s = per_client, at_once, wait_s
        self._serving: collections.Counter[str] = collections.Counter()
        self._changed = asyncio.Condition()     # bound to the app's loop at its first wait

    @contextlib.asynccontextmanager
    async def turn(self, client: str):
        async with self._changed:
            free = lambda: self._serving[client] < self.per_client and self._serving.total() < self.at_once  # noqa: E731
            try:
                await asyncio.wait_for(self._changed.wait_for(free), self.wait_s)
            except TimeoutError:
                raise tensors.Busy(tensors.BUSY) from None
            self._serving[client] += 1
        try:
            yield
        finally:
            async with self._changed:
                self._serving[client] -= 1
                if not self._serving[client]:
                    del self._serving[client]
                self._changed.notify_all()


def _turn(request: Request):
    turns = getattr(request.app.state, "tensor_turns", None)
    if turns is None:
        turns = request.app.state.tensor_turns = Turns()
    return turns.turn(client_address(request.scope))


def _refused(gone: tensors.Gone) -> SafeJSONResponse:
    """404 with the reason; 429 for a client whose requests wait past their turn."""
    return SafeJSONResponse(worded(str(gone), gone.key), status_code=gone.status,
                            headers={"Retry-After": "1"} if gone.status == 429 else None)


@router.get("/api/runs/{run_id}/tensors/{tensor_id}/summary")
async def tensor_summary(run_id: str, tensor_id: str, request: Request):
    try:
        async with _turn(request):
            found = await run_in_threadpool(tensors.summary, client_address(request.scope), run_id, tensor_id)
    except tensors.Gone as gone:
        return _refused(gone)
    return SafeJSONResponse(found, headers={"Cache-Control": "private, max-age=600"})


@router.get("/api/runs/{run_id}/tensors/{tensor_id}")
async def tensor_values(run_id: str, tensor_id: str, request: Request) -> Response:
    try:
        async with _turn(request):
            header, values = await run_in_threadpool(tensors.npy_parts, client_address(request.scope), run_id,
                                                     tensor_id)
    except tensors.Gone as gone:
        return _refused(gone)

    async def body():
        yield header
        for start in range(0, len(values), CHUNK):
            yield bytes(values[start:start + CHUNK])

    return StreamingResponse(body(), media_type="application/octet-stream", headers={
        "Content-Length": str(len(header) + len(values)),
        "Content-Disposition": f'attachment; filename="{tensor_id}.npy"', "Cache-Control": "private, max-age=600"})
