"""POST /api/snippets and GET /api/snippets/{id}: share links that restore code and view state."""
from __future__ import annotations

import re
from typing import Any

from fastapi import APIRouter
from fastapi.concurrency import run_in_threadpool
from pydantic import Field

from app.config import get_settings
from app.responses import SafeJSONResponse, worded
from app.schemas import ApiRequest
from app.services import snippets



def _open_store_on_start() -> None:
    """Open (create, migrate) the database when the app starts, not on the first share."""
    snippets.store()


router = APIRouter(on_startup=[_open_store_on_start])
ID_PATTERN = re.compile(r"^[A-Za-z0-9_-]{4,32}$")


class SnippetRequest(ApiRequest):
    code: str
    state: dict[str, Any] = Field(default_factory=dict)


def load_snippet(snippet_id: str) -> dict | None:
    """The stored snippet, or None for an unknown or malformed id (shared with the page route)."""
    if not ID_PATTERN.match(snippet_id):
        return None
    return snippets.store().load(snippet_id)


@router.post("/api/snippets", status_code=201)
async def create_snippet(req: SnippetRequest):
    settings = get_settings()
    store = snippets.store(settings)
    try:
        snippet_id = await run_in_threadpool(store.save, req.code, req.state,
                                             max(0, int(settings.snippet_store_mb * 1_000_000)))
    except snippets.SnippetTooLarge as exc:
        return SafeJSONResponse(worded(str(exc), exc.key, **exc.params), status_code=413)
    except snippets.SnippetInvalid as exc:
        return SafeJSONResponse(worded(str(exc), exc.key, **exc.params), status_code=422)
    except snippets.SnippetStoreFull as exc:
        return SafeJSONResponse(worded(str(exc), exc.key, **exc.params), status_code=507)
    return {"id": snippet_id, "url": f"/s/{snippet_id}"}


@router.get("/api/snippets/{snippet_id}")
async def get_snippet(snippet_id: str):
    found = await run_in_threadpool(load_snippet, snippet_id)
    if found is None:
        return SafeJSONResponse(worded("no snippet with this id", "no_snippet"), status_code=404)
    return found
