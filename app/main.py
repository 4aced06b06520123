"""Assembles the FastAPI application from its routers; no logic lives here."""
from __future__ import annotations

import asyncio
import contextlib

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from fastapi.staticfiles import StaticFiles

from app import logs, middleware
from app.security_headers import SecurityHeaders
from app.responses import SafeJSONResponse, validation_error
from app.config import ROOT, get_settings
from app.routes import embed_tickets, examples, files, health, metrics, onnx_import, ops, pages, render, run, snippets, tensors
from app.services import database, expiry, runs, tensors as tensor_store
from app.services.metrics import RenderTimer


@contextlib.asynccontextmanager
async def _lifespan(app: FastAPI):
    runs.warm_up()          # the first student's run should not pay the worker pool's start
    sweeper = asyncio.create_task(expiry.expire_periodically())
    shared = database.database()
    if shared.shared:                     # PostgreSQL: a Stop, or a click, may reach another replica
        runs.relay_stops(shared)
        tensor_store.store()              # listening for asks before the first run is answered
    yield
    sweeper.cancel()
    runs.stop_relaying()
    # the runs answered (the drain) leave their tensor values where other replicas can read them
    await asyncio.to_thread(tensor_store.flush, get_settings().drain_timeout_s)
    tensor_store.close_stores()
    database.close_all()


def create_app() -> FastAPI:
    app = FastAPI(title="Dagscope", version="0.1.0", lifespan=_lifespan,
                  default_response_class=SafeJSONResponse)
    app.add_exception_handler(RequestValidationError, validation_error)
    app.mount("/static", StaticFiles(directory=ROOT / "static"), name="static")
    app.include_router(health.router)
    app.include_router(metrics.router)
    app.include_router(run.router)
    app.include_router(render.router)
    app.include_router(examples.router)
    app.include_router(ops.router)
    app.include_router(snippets.router)
    app.include_router(embed_tickets.router)
    app.include_router(tensors.router)
    app.include_router(files.router)
    app.include_router(onnx_import.router)
    app.include_router(pages.router)
    middleware.install(app)   # Host, Origin and content type, token, write rates, body size, strict JSON
    app.add_middleware(RenderTimer)
    app.add_middleware(SecurityHeaders)   # also on the answers the others give
    app.add_middleware(logs.RequestId)    # outermost: every line logged for the request carries its id
    return app
