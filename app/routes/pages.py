"""GET / and GET /s/{id}: the page (Jinja2 template; the browser side lives in static/)."""
from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from app.config import ROOT
from app.routes.snippets import load_snippet

router = APIRouter()
templates = Jinja2Templates(directory=ROOT / "templates")


@router.get("/", response_class=HTMLResponse)
def index(request: Request):
    return templates.TemplateResponse(request, "index.html", {"snippet": None})


@router.get("/s/{snippet_id}", response_class=HTMLResponse)
async def shared(request: Request, snippet_id: str):
    """A share link: the same page, with the stored code and view state embedded for the script."""
    snippet = await run_in_threadpool(load_snippet, snippet_id)
    if snippet is None:
        return templates.TemplateResponse(request, "index.html", {"snippet": None, "missing": snippet_id},
                                          status_code=404)
    return templates.TemplateResponse(request, "index.html", {"snippet": snippet})
