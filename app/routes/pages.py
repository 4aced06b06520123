"""GET /: the page (Jinja2 template; the browser side lives in static/)."""
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from app.config import ROOT

router = APIRouter()
templates = Jinja2Templates(directory=ROOT / "templates")


@router.get("/", response_class=HTMLResponse)
def index(request: Request):
    return templates.TemplateResponse(request, "index.html", {})
