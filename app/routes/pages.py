"""GET / and GET /s/{id}: the page (Jinja2 template; the browser side lives in static/). With
`?embed=1` the same page is the embed page (docs/embed.md): the template hands the script the
origins that may frame it (app/security_headers.py), the ones whose messages its API answers."""
from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from app.config import ROOT, get_settings
from app.routes.snippets import load_snippet
from app.security_headers import embed_ancestors, is_embed

router = APIRouter()
templates = Jinja2Templates(directory=ROOT / "templates")


def _embed(request: Request) -> dict:
    """The embed page's framing origins for its script ('self' is this server's own origin)."""
    if not is_embed(request.scope):
        return {}
    return {"embed_origins": embed_ancestors(get_settings().embed_ancestors)}


@router.get("/", response_class=HTMLResponse)
def index(request: Request):
    return templates.TemplateResponse(request, "index.html", {"snippet": None, **_embed(request)})


@router.get("/s/{snippet_id}", response_class=HTMLResponse)
async def shared(request: Request, snippet_id: str):
    """A share link: the same page, with the stored code and view state embedded for the script."""
    snippet = await run_in_threadpool(load_snippet, snippet_id)
    if snippet is None:
        return templates.TemplateResponse(request, "index.html", {"snippet": None, "missing": snippet_id, **_embed(request)},
                                          status_code=404)
    return templates.TemplateResponse(request, "index.html", {"snippet": snippet, **_embed(request)})
