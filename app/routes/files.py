"""GET /api/files/{file_id}: a file a run wrote, as a download (app/services/run_files.py).

The bytes and the name are the run's: they are served as an attachment with a neutral type
(never rendered: nosniff and the API's `default-src 'none'` policy come from
app/security_headers.py), under a name reduced to safe ASCII, with the UTF-8 name beside it."""
from __future__ import annotations

from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response

from app.middleware import client_address
from app.responses import SafeJSONResponse, worded
from app.services import run_files

router = APIRouter()


@router.get("/api/files/{file_id}")
async def run_file(file_id: str, request: Request):
    try:
        stored, data = await run_in_threadpool(run_files.download, client_address(request.scope), file_id)
    except run_files.Gone as gone:
        return SafeJSONResponse(worded(str(gone), "file_gone"), status_code=404)
    return Response(data, media_type="application/octet-stream", headers={
        "Content-Disposition": content_disposition(stored.name), "X-Content-Type-Options": "nosniff",
        "Cache-Control": "private, max-age=600"})


def content_disposition(name: str) -> str:
    """`attachment` with the last part of the name as ASCII letters, digits, '.', '-' and '_'
    (the rest '_'; never a leading dot) and, for browsers that read it, as UTF-8 (RFC 6266)."""
    base = name.rsplit("/", 1)[-1]
    ascii_name = "".join(ch if (ch.isascii() and (ch.isalnum() or ch in "._-")) else "_" for ch in base)
    ascii_name = ascii_name.lstrip(".")[:100] or "file"
    return f"attachment; filename=\"{ascii_name}\"; filename*=UTF-8''{quote(base[:100], safe='')}"
