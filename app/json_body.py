"""JSON request bodies that Python parses but nothing after it can handle, refused with a 422.

Python's json module accepts `NaN`, `Infinity` and `1e999` (which becomes inf); such a value
then fails when the answer (a validation error echoing it, a stored snippet) is written as
strict JSON. A body nested hundreds of levels deep parses, but the validators and encoders that
walk it recursively do not survive it. Both are refused here, before any route sees the body.
"""
from __future__ import annotations

import json
import math

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
    value = float(text)
    if not math.isfinite(value):
        raise _NotFinite(text)
    return value


def strict_loads(body: bytes):
    """json.loads, except that non-finite numbers raise _NotFinite."""
    return json.loads(body, parse_constant=_reject_constant, parse_float=_finite_float)


def too_deep(value, limit: int = MAX_DEPTH) -> bool:
    """Whether lists and objects nest deeper than `limit` (walked without recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        for child in (item.values() if type(item) is dict else item):
            if type(child) is dict or type(child) is list:
                if depth >= limit:
                    return True
                stack.append((child, depth + 1))
    return False


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
        value = strict_loads(body)
    except _NotFinite as exc:
        return (f"numbers must be finite: {str(exc)[:40]} is not accepted "
                "(NaN, Infinity and numbers beyond a double's range, such as 1e999, have no JSON meaning)")
    except RecursionError:
        return f"the JSON body nests deeper than {MAX_DEPTH} levels"
    except (ValueError, TypeError):
        return ""
    if isinstance(value, (dict, list)) and too_deep(value):
        return f"the JSON body nests deeper than {MAX_DEPTH} levels"
    return ""
