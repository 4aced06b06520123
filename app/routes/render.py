"""POST /api/render: a Graph drawn as SVG, PNG or DOT."""
from fastapi import APIRouter
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response

from app.config import get_settings
from app.responses import SafeJSONResponse
from app.schemas import RenderRequest
from app.services import graph_view
from app.services import render as render_service

router = APIRouter()


@router.post("/api/render")
async def render_graph(req: RenderRequest) -> Response:
    graph = graph_view.collapse(req.graph.model_dump(), req.collapse, req.expanded, req.auto_collapse)
    if req.fold_repeats:
        graph = graph_view.fold_repeats(graph)
    try:
        out = await run_in_threadpool(render_service.render, graph, req.format, req.direction,
                                      get_settings().render_timeout_s)
    except render_service.RenderError as exc:
        return SafeJSONResponse({"detail": str(exc)}, status_code=422)
    return Response(out.content, media_type=out.media_type,
                    headers={"X-Dagscope-Cache": "hit" if out.cached else "miss"})
