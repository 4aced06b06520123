"""ASGI middleware for serving a class: access token, request size limit, per-client write rates
(the Host/Origin checks are in app/origin.py, the JSON body checks in app/json_body.py).

Each one answers before the request body is read, so a huge or unwanted request costs nothing.
Settings are read per request, so the environment (and tests) can change them at any time.
"""
from __future__ import annotations

import hmac
import logging
import math
import threading
import time
from urllib.parse import parse_qs

from fastapi.concurrency import run_in_threadpool

from app.config import get_settings
from app.responses import reply, worded
from app.services import database, embed_tickets, rate_buckets

log = logging.getLogger("dagscope.middleware")

TOKEN_COOKIE = "dagscope_token"
OPEN_PATHS = ("/healthz", "/readyz", "/static/")
OWN_AUTH_PATHS = ("/metrics",)      # checks its own token (app/routes/metrics.py), not the classroom's


def client_address(scope) -> str:
    client = scope.get("client")
    return client[0] if client else "unknown"


class AccessToken:
    """With DAGSCOPE_ACCESS_TOKEN set, every route but /healthz and /static needs the token:
    `?token=...` once (it is then kept in a cookie), the cookie, or `Authorization: Bearer ...`;
    or, for one page once, a ticket (`?ticket=`: app/services/embed_tickets.py) that sets a session
    cookie which is not the token (embed_tickets.session)."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        token = get_settings().access_token
        if (scope["type"] != "http" or not token or scope["path"].startswith(OPEN_PATHS)
                or scope["path"] in OWN_AUTH_PATHS):
            return await self.app(scope, receive, send)
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        given_in_query = query.get("token", [""])[0]
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        candidates = [given_in_query, headers.get("authorization", "").removeprefix("Bearer ").strip(),
                      _cookie(headers.get("cookie", ""), TOKEN_COOKIE)]
        valid = (any(c and hmac.compare_digest(c.encode(), token.encode()) for c in candidates)
                 or embed_tickets.session_valid(candidates[2], token))
        if not valid and scope["method"] == "GET" and embed_tickets.redeem(query.get("ticket", [""])[0], token,
                                                                           scope["path"]):
            # an embedded page's one-time ticket (app/services/embed_tickets.py): in, and the cookie set
            valid, given_in_query = True, "ticket"
        if not valid:
            said = "This Dagscope server needs an access token: open the link your teacher gave you."
            return await reply(send, 401, said, wording=worded(said, "token_needed"))
        if not given_in_query:
            return await self.app(scope, receive, send)

        kept = embed_tickets.session(token) if given_in_query == "ticket" else token

        async def send_with_cookie(message):
            if message["type"] == "http.response.start":
                cookie = f"{TOKEN_COOKIE}={kept}; Path=/; HttpOnly; SameSite=Strict"
                message = {**message, "headers": [*message.get("headers", []), (b"set-cookie", cookie.encode())]}
            await send(message)
        return await self.app(scope, receive, send_with_cookie)


def _cookie(header: str, name: str) -> str:
    for part in header.split(";"):
        key, _, value = part.strip().partition("=")
        if key == name:
            return value
    return ""


class _TooLarge(Exception):
    pass


class BodyLimit:
    """413 for a body over DAGSCOPE_MAX_BODY_BYTES: from Content-Length before reading, or while
    reading a body sent without one (chunked)."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        limit = get_settings().max_body_bytes
        for key, value in scope.get("headers", []):
            if key.lower() == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    return await reply(send, 400, "invalid Content-Length")
                if declared > limit:
                    said = f"request body larger than {limit} bytes"
                    return await reply(send, 413, said, wording=worded(said, "body_too_large", bytes=limit))
        seen = 0
        started = responded = False

        async def counting_receive():
            nonlocal seen, responded
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    # Answer now: the framework would turn any error raised while it parses the
                    # body into its own 400, which the guarded `send` below then drops.
                    if not started and not responded:
                        responded = True
                        said = f"request body larger than {limit} bytes"
                        await reply(send, 413, said, wording=worded(said, "body_too_large", bytes=limit))
                    raise _TooLarge()
            return message

        async def guarded_send(message):
            nonlocal started
            if responded:
                return
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counting_receive, guarded_send)
        except _TooLarge:
            pass


# Every writing route has its own token bucket per client: (settings' rate, burst, what is counted).
RATE_LIMITS = {
    "/api/run": ("rate_per_min", "rate_burst", "runs"),
    "/api/onnx/open": ("rate_per_min", "rate_burst", "runs"),           # an ONNX file opens as a run
    "/api/snippets": ("snippet_rate_per_min", "snippet_rate_burst", "shared snippets"),
    "/api/render": ("render_rate_per_min", "render_rate_burst", "drawings"),
    "/api/render/batch": ("render_rate_per_min", "render_rate_burst", "drawings"),   # one dot for all
}
OTHER_WRITES = ("write_rate_per_min", "write_rate_burst", "requests that change things")
WRITE_METHODS = ("POST", "PUT", "PATCH", "DELETE")
# the page's wording of "too many ... from this computer" (static/i18n: api.too_many_*)
WHAT_KEYS = {"runs": "runs", "shared snippets": "snippets", "drawings": "drawings",
             "requests that change things": "writes"}


class WriteRateLimit:
    """A token bucket per client address and writing route (RATE_LIMITS; any other POST, PUT,
    PATCH or DELETE shares the OTHER_WRITES bucket): so many a minute on average, bursts of so
    many; beyond it 429 with Retry-After. Addresses in DAGSCOPE_UNLIMITED_CLIENTS (the server's own
    machine by default) are not limited. With a shared database (PostgreSQL) the buckets are kept
    there (app/services/rate_buckets.py), so the limits hold for all replicas together; if it
    cannot answer, the request is let through (logged): a limiter must not stop the class."""

    MAX_CLIENTS = 10_000

    def __init__(self, app):
        self.app = app
        self._buckets: dict[tuple[str, str], tuple[float, float]] = {}
        self._lock = threading.Lock()

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and scope["method"] in WRITE_METHODS:
            rate_name, burst_name, what = RATE_LIMITS.get(scope["path"], OTHER_WRITES)
            settings, route = get_settings(), scope["path"] if scope["path"] in RATE_LIMITS else "*"
            wait = await self._wait(client_address(scope), route, getattr(settings, rate_name),
                                    getattr(settings, burst_name))
            if wait > 0:
                said = f"too many {what} from this computer; wait {math.ceil(wait)} s"
                return await reply(send, 429, said, {"Retry-After": str(math.ceil(wait))},
                                   wording=worded(said, f"too_many_{WHAT_KEYS[what]}", s=math.ceil(wait)))
        return await self.app(scope, receive, send)

    async def _wait(self, client: str, route: str, per_min: float, burst: int) -> float:
        if per_min <= 0 or client in get_settings().unlimited_clients:
            return 0.0
        if not get_settings().database_url:             # the embedded database: one process
            return self.take(client, route, per_min, burst)
        try:
            return await run_in_threadpool(rate_buckets.take, database.database(), route, client, per_min, burst)
        except Exception as exc:            # noqa: BLE001 — the database's own failure shows elsewhere
            log.warning("the shared rate limit could not be read (%s); the request goes through", exc)
            return 0.0

    def take(self, client: str, route: str, per_min: float, burst: int) -> float:
        """Spend one token; returns 0, or the seconds until a token is available."""
        rate, burst = per_min / 60.0, max(1, burst)
        if rate <= 0 or client in get_settings().unlimited_clients:
            return 0.0
        now, key = time.monotonic(), (route, client)
        with self._lock:
            tokens, last = self._buckets.get(key, (float(burst), now))
            tokens = min(float(burst), tokens + (now - last) * rate)
            if tokens < 1:
                self._buckets[key] = (tokens, now)
                return (1 - tokens) / rate
            self._buckets[key] = (tokens - 1, now)
            if len(self._buckets) > self.MAX_CLIENTS:
                self._buckets = dict(list(self._buckets.items())[-self.MAX_CLIENTS // 2:])
        return 0.0


def install(app) -> None:
    """Register the middleware. The last added runs first: Host, Origin and content type, token,
    rate, size, then the JSON body checks; each answers before the next one runs."""
    from app.json_body import StrictJSON
    from app.origin import HostCheck, SameOrigin
    app.add_middleware(StrictJSON)
    app.add_middleware(BodyLimit)
    app.add_middleware(WriteRateLimit)
    app.add_middleware(AccessToken)
    app.add_middleware(SameOrigin)
    app.add_middleware(HostCheck)
