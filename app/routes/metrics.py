"""GET /metrics: the Prometheus exposition of app/services/metrics.py (and prometheus-client's
process collectors: CPU, memory, open descriptors).

Not for students: with DAGSCOPE_METRICS_TOKEN set it needs `Authorization: Bearer <that token>`
(what Prometheus' `authorization` setting sends), a secret of its own, not the classroom's access
token; without it only this machine may read it (a loopback client). Either way the classroom
token (DAGSCOPE_ACCESS_TOKEN) neither grants nor is needed for it. docs/security.md, "Metrics"."""
from __future__ import annotations

import hmac
import ipaddress
import logging

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from app.config import get_settings
from app.middleware import client_address
from app.responses import SafeJSONResponse
from app.services import metrics, run_files, snippets, tensors

router = APIRouter()
log = logging.getLogger("dagscope.metrics")


def allowed(request: Request) -> bool:
    token = get_settings().metrics_token
    if token:
        given = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
        return bool(given) and hmac.compare_digest(given.encode(), token.encode())
    try:
        return ipaddress.ip_address(client_address(request.scope)).is_loopback
    except ValueError:
        return False


def _measure_stores() -> None:
    """The stores' sizes, read when scraped (a SUM over each table, or the memory store's count)."""
    for name, size in (("snippets", lambda: snippets.store().used_bytes()), ("tensor_values", lambda: tensors.store().nbytes),
                       ("run_files", lambda: run_files.store().used_bytes())):
        try:
            metrics.STORE_BYTES.labels(name).set(size())
        except Exception as exc:                  # noqa: BLE001 — a scrape still answers the rest
            log.warning("metrics: the %s store's size could not be read: %s", name, exc)


@router.get("/metrics", include_in_schema=False)
async def prometheus_metrics(request: Request):
    if not allowed(request):
        return SafeJSONResponse({"detail": "metrics are for the server's operator: send DAGSCOPE_METRICS_TOKEN "
                                 "as a Bearer token (without one set, only this machine may read them)"},
                                status_code=403)
    await run_in_threadpool(_measure_stores)
    return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)
