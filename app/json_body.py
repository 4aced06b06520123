"""JSON request bodies that Python parses but nothing after it can handle, refused with a 422.

Python's json module accepts `NaN`, `Infinity` and `1e999` (which becomes inf); such a value
then fails when the answer (a validation error echoing it, a stored snippet) is written as
strict JSON. A body nested hundreds of levels deep parses, but the validators and encoders that
walk it recursively do not survive it. Both are refused here, before any route sees the body.
"""
from __future__ import annotations

import json
import math
import re

from starlette.concurrency import run_in_threadpool

from app.responses import reply
from app.origin import is_json

MAX_DEPTH = 32            # the API's deepest legitimate body (a graph's node attributes) is ~6
INLINE_BYTES = 64_000     # bodies up to this size are checked on the event loop (well under 1 ms)


class _NotFinite(ValueError):
    pass


def _reject_constant(name: str):
    raise _NotFinite(name)


def _finite_float(text: str) -> float:
    value = float(text)            # called for numbers with a fraction or exponent only
    if not math.isfinite(value):
        raise _NotFinite(text)
    return value


def strict_loads(body: bytes):
    """json.loads, except that NaN, Infinity and numbers beyond a double's range raise _NotFinite."""
    return json.loads(body, parse_constant=_reject_constant, parse_float=_finite_float)


_ALL_BUT_BRACKETS = bytes(range(256)).translate(None, b"[]{}")     # every byte but the four brackets
_LEAF_PAIR = re.compile(rb"\[\]|\{\}")


def nests_deeper(body: bytes, limit: int = MAX_DEPTH) -> bool:
    """Whether the lists and objects of a valid JSON text nest deeper than `limit`, read from its
    brackets outside strings (a few ms for a megabyte, where walking the parsed value took ~100):
    each pass removes the innermost pairs, one level, so `limit` passes empty a text that fits."""
    unescaped = body.replace(b"\\\\", b"").replace(b'\\"', b"")
    outside_strings = b"".join(unescaped.split(b'"')[::2])
    brackets = outside_strings.translate(None, _ALL_BUT_BRACKETS)
    for _ in range(limit):
        if not brackets:
            return False
        brackets = _LEAF_PAIR.sub(b"", brackets)
    return bool(brackets)


class StrictJSON:
    """Reads a JSON request body whole (BodyLimit, outside this, bounds it), checks it, and hands
    the same bytes on. A body that is not JSON at all is left to the framework's own 422."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] not in ("POST", "PUT", "PATCH") or not is_json(scope):
            return await self.app(scope, receive, send)
        chunks = []
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return               # the client went away
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        # A drawing's graph can be megabytes: parsing it on the event loop would stall /healthz.
        problem = json_problem(body) if len(body) < INLINE_BYTES else await run_in_threadpool(json_problem, body)
        if problem:
            return await reply(send, 422, problem)
        replayed = False

        async def replay():
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()
        return await self.app(scope, replay, send)


def json_problem(body: bytes) -> str:
    """Why this body is refused, or '' (also for a body that is not JSON: the route says why)."""
    try:
        strict_loads(body)
    except _NotFinite as exc:
        return (f"numbers must be finite: {str(exc)[:40]} is not accepted "
                "(NaN, Infinity and numbers beyond a double's range, such as 1e999, have no JSON meaning)")
    except RecursionError:
        return f"the JSON body nests deeper than {MAX_DEPTH} levels"
    except (ValueError, TypeError):
        return ""
    if nests_deeper(body):
        return f"the JSON body nests deeper than {MAX_DEPTH} levels"
    return ""
