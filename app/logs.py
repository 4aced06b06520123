"""Logs: one JSON object per line when DAGSCOPE_LOG_FORMAT=json (what a log collector wants; the
compose file sets it), uvicorn's plain lines otherwise; and a request id on every line logged
while a request is served, including the run service's lines about that request's run in its
worker thread (app/services/runs.py carries the id there), so one grep follows a run from the
HTTP request through the queue, the sandbox's report and the answer.

The id is the `X-Request-ID` the reverse proxy sent (deploy/nginx.conf sets nginx's $request_id),
if it is a plain token, or a new one; the answer carries it back in `X-Request-ID`."""
from __future__ import annotations

import contextvars
import copy
import json
import logging
import re
import secrets
import time

REQUEST_ID: contextvars.ContextVar[str] = contextvars.ContextVar("dagscope_request_id", default="-")
GIVEN_ID = re.compile(r"[A-Za-z0-9._-]{8,64}")
STANDARD_ATTRS = frozenset(logging.makeLogRecord({}).__dict__) | {"message", "asctime", "color_message"}


class JSONFormatter(logging.Formatter):
    """time, level, logger, message, request_id, and any `extra={...}` fields of the call."""

    def format(self, record: logging.LogRecord) -> str:
        out = {"time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
               "level": record.levelname.lower(), "logger": record.name, "message": record.getMessage(),
               "request_id": getattr(record, "request_id", None) or REQUEST_ID.get()}
        for key, value in record.__dict__.items():
            if key not in STANDARD_ATTRS and key not in out:
                out[key] = value if isinstance(value, (str, int, float, bool, type(None))) else str(value)
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False)


class _WithRequestId(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = REQUEST_ID.get()
        return True


def log_config(fmt: str) -> dict:
    """A logging.config.dictConfig for uvicorn: its own (uvicorn.config.LOGGING_CONFIG, as JSON
    lines with DAGSCOPE_LOG_FORMAT=json) and the app's `dagscope.*` loggers, with the request id."""
    from uvicorn.config import LOGGING_CONFIG
    config = copy.deepcopy(LOGGING_CONFIG)
    json_lines = fmt == "json"
    config["filters"] = {**config.get("filters", {}), "request_id": {"()": _WithRequestId}}
    config["formatters"]["dagscope"] = {"()": JSONFormatter} if json_lines else {
        "format": "%(levelname)s:     %(name)s [%(request_id)s] %(message)s"}
    config["handlers"]["dagscope"] = {"class": "logging.StreamHandler", "formatter": "dagscope",
                                      "stream": "ext://sys.stderr", "filters": ["request_id"]}
    config["loggers"]["dagscope"] = {"handlers": ["dagscope"], "level": "INFO", "propagate": False}
    if json_lines:                 # uvicorn's own lines as JSON too; otherwise uvicorn keeps its format
        for handler in config["handlers"].values():
            handler["formatter"] = "dagscope"
            handler["filters"] = ["request_id"]
    return config


class RequestId:
    """ASGI middleware: the request's id in REQUEST_ID while it is served, and in the answer."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        given = next((v.decode("latin-1") for k, v in scope.get("headers", []) if k.lower() == b"x-request-id"), "")
        request_id = given if GIVEN_ID.fullmatch(given) else secrets.token_hex(8)
        token = REQUEST_ID.set(request_id)

        async def send_with_id(message):
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), (b"x-request-id", request_id.encode())]}
            await send(message)
        try:
            await self.app(scope, receive, send_with_id)
        finally:
            REQUEST_ID.reset(token)
