"""JSON responses that can carry whatever a program printed or raised."""
from __future__ import annotations

import json

import orjson
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.requests import Request


class SafeJSONResponse(JSONResponse):
    """Starlette's JSONResponse, except that a lone surrogate (`print('\\ud800')`, or one sent in
    a request and echoed in a validation error) becomes '?' instead of a UnicodeEncodeError, a
    500 and a lost run record: such a character exists in a Python str but not in UTF-8."""

    def render(self, content) -> bytes:
        # orjson first: a run record's answer is written on the event loop, and nanoGPT's 0.46 MB
        # took json 11-20 ms, orjson 1 ms (issue 16). The same JSON, read back (floats in their
        # shortest form, characters unescaped); what orjson will not write (a lone surrogate, an
        # integer past 64 bits) is json's as before. A float that is not finite, which json refused
        # with a 500, orjson writes as null.
        try:
            return orjson.dumps(content, option=orjson.OPT_NON_STR_KEYS)
        except TypeError:        # (orjson.JSONEncodeError is one)
            pass
        return json.dumps(content, ensure_ascii=False, allow_nan=False, indent=None,
                          separators=(",", ":")).encode("utf-8", "replace")


async def validation_error(request: Request, exc: RequestValidationError) -> SafeJSONResponse:
    """FastAPI's 422 body, through the safe encoder (it echoes the offending input)."""
    return SafeJSONResponse(status_code=422, content={"detail": jsonable_encoder(exc.errors())})


def worded(detail: str, key: str, **params) -> dict:
    """An error answer's body: its English `detail`, and beside it the page's wording of it (a key
    of static/i18n's api.* and its parameters: static/js/api.js says it in the page's language)."""
    return {"detail": detail, "detail_message": {"key": f"api.{key}", "params": params}}


async def reply(send, status: int, detail: str, headers: dict | None = None, wording: dict | None = None) -> None:
    """A JSON error answered straight from ASGI middleware, before the app (or the body) is read
    (`wording`: worded()'s body, whose detail is `detail`)."""
    body = json.dumps(wording or {"detail": detail}).encode()
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    raw += [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})
