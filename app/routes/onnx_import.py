"""POST /api/onnx/open: an ONNX file chosen or dropped on the page, opened as a run.

The file is hostile and is never parsed here: the server checks its size and that it is base64,
then hands it to a sandboxed run (the scratch folder's `model.onnx`, written before the program
starts: app/sandbox/child.py) whose program is `OPEN_PROGRAM` — Dagscope's own code, shown in the
editor: `dagscope.onnx.load` reads the file under its limits (engine/onnx/reader.py), draws its
graph, and when it knows every operator runs it on a random input and compiles its kernels. So a
malformed or malicious file costs one run's limits, and its errors come back as a run's error
(docs/security.md, "ONNX files")."""
from __future__ import annotations

import asyncio
import base64
import binascii
import re

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from pydantic import Field

from app.middleware import client_address
from app.responses import SafeJSONResponse, worded
from app.schemas import STOP_KEY_PATTERN, ApiRequest
from app.services import run_files, runs

router = APIRouter()

MAX_FILE_BYTES = 4 << 20          # base64 of it (5.6 MB) fits the server's 8 MB body limit
SAFE_NAME = re.compile(r"[^A-Za-z0-9_.-]")

OPEN_PROGRAM = '''\
# The ONNX file you opened, read by Dagscope: its graph is on the Static tab (its passes on
# Passes); when Dagscope knows every operator it runs the model on a random input and compiles
# its kernels (Kernels). Edit and Run as any program.
import dagscope as ds

model = ds.onnx.load({name!r})
print(model)
if not model.unknown_operators:
    outputs = ds.compile(model)(*model.random_inputs())
    for name, y in zip(model.output_names, outputs if isinstance(outputs, tuple) else (outputs,)):
        print(f"{{name}} on a random input: shape {{tuple(y.shape)}}, dtype {{y.dtype}}")
'''


class OpenRequest(ApiRequest):
    name: str = Field("model.onnx", max_length=200, description="the file's name (shown; reduced to safe characters)")
    data: str | None = Field(None, max_length=(MAX_FILE_BYTES + 2) // 3 * 4, description="the file's bytes, base64")
    file_id: str | None = Field(None, max_length=100,
                                description="or a file a run of this client wrote (the record's files: its View graph link)")
    stop_key: str | None = Field(None, pattern=STOP_KEY_PATTERN)

    model_config = {"extra": "forbid"}


def file_name(name: str) -> str:
    """The name the run sees: the last part of the upload's, safe characters only, ending in .onnx."""
    base = SAFE_NAME.sub("_", name.rsplit("/", 1)[-1].rsplit("\\", 1)[-1]).lstrip(".-")[:80]
    if not base.lower().endswith(".onnx"):
        base = (base or "model") + ".onnx"
    return base


@router.post("/api/onnx/open")
async def open_onnx(req: OpenRequest, request: Request):
    client = client_address(request.scope)
    if (req.data is None) == (req.file_id is None):
        return SafeJSONResponse(worded("send the file's bytes (data) or a run's file (file_id)", "onnx_no_file"),
                                status_code=422)
    name = req.name
    if req.file_id is not None:
        try:
            stored, data = await run_in_threadpool(run_files.download, client, req.file_id)
        except run_files.Gone as gone:
            return SafeJSONResponse(worded(str(gone), "file_gone"), status_code=404)
        name = stored.name
    else:
        try:
            data = base64.b64decode(req.data, validate=True)
        except (binascii.Error, ValueError):
            return SafeJSONResponse(worded("the file's bytes must be base64", "onnx_not_base64"), status_code=422)
    if len(data) > MAX_FILE_BYTES:
        size, most = f"{len(data):,}", f"{MAX_FILE_BYTES:,}"
        return SafeJSONResponse(worded(f"the file is {size} bytes; the page opens ONNX files of at most {most}",
                                       "onnx_too_large", bytes=size, max=most), status_code=413)
    if not data:
        return SafeJSONResponse(worded("the file is empty", "onnx_empty"), status_code=422)
    name = file_name(name)
    code = OPEN_PROGRAM.format(name=name)
    options = {"inputs": {name: base64.b64encode(data).decode("ascii")}}
    try:
        future = runs.submit(client, code, options, req.stop_key)
    except runs.KeyInUse as taken:
        return SafeJSONResponse(worded(str(taken), "stop_key_in_use"), status_code=409)
    except runs.Busy as busy:
        return SafeJSONResponse(worded(busy.message, busy.key, **busy.params), status_code=busy.status,
                                headers={"Retry-After": str(busy.retry_after)})
    record = await asyncio.wrap_future(future)
    return SafeJSONResponse({"code": code, "name": name, "record": record})
