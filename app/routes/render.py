"""POST /api/render: a Graph drawn as SVG, PNG or DOT.

The body is read here but parsed, validated and drawn in a render slot's thread:
validating a large graph takes seconds of CPU, which on the event loop would stall /healthz and
every other request. Its time counts against DAGSCOPE_RENDER_TIMEOUT like dot's own."""
import json
import time

from fastapi import APIRouter, Request
from fastapi.encoders import jsonable_encoder
from fastapi.responses import Response
from pydantic import ValidationError

from app.config import get_settings
from app.responses import SafeJSONResponse
from app.schemas import MAX_GRAPH_EDGES, MAX_GRAPH_NODES, RenderRequest
from app.services import render as render_service

router = APIRouter()


def _inline_refs(schema: dict) -> dict:
    """The request's JSON schema with its `$defs` written in place (they are not recursive), so
    that OpenAPI readers (the docs page, the fuzz test) see the body without FastAPI's models."""
    defs = schema.pop("$defs", {})

    def walk(node):
        if isinstance(node, dict):
            if "$ref" in node:
                return walk(defs[node["$ref"].rsplit("/", 1)[1]])
            return {k: walk(v) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node
    return walk(schema)


_BODY = {"requestBody": {"required": True, "content": {"application/json": {
    "schema": _inline_refs(RenderRequest.model_json_schema())}}}}


def _no_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"{text} is too large a number")
    return value


def _parse(body: bytes, budget: render_service.Budget) -> RenderRequest:
    try:
        data = json.loads(body, parse_constant=_no_constant, parse_float=_finite)
    except (ValueError, RecursionError) as exc:
        raise render_service.RenderError(f"The request is not valid JSON: {exc}") from None
    graph = data.get("graph") if isinstance(data, dict) else None
    if isinstance(graph, dict):     # counted before the (slower) validation of every node
        n_nodes, n_edges = (len(graph.get(k)) if isinstance(graph.get(k), list) else 0
                            for k in ("nodes", "edges"))
        if n_nodes > MAX_GRAPH_NODES or n_edges > MAX_GRAPH_EDGES:
            raise render_service.RenderTooLarge(
                f"The graph is too large to send: {n_nodes} nodes and {n_edges} edges (at most "
                f"{MAX_GRAPH_NODES} and {MAX_GRAPH_EDGES}); fold its modules (the page does) or draw a part.")
        render_service.check_size(graph, budget)   # refused unread: validating it would be wasted
    return RenderRequest.model_validate(data)


def _draw(body: bytes, budget: render_service.Budget) -> render_service.Rendered:
    with render_service.python_turn(budget):
        req = _parse(body, budget)
        graph = req.graph.model_dump()
    return render_service.render(graph, req.format, req.direction, budget, req.lang)


@router.post("/api/render", openapi_extra=_BODY)
async def render_graph(request: Request) -> Response:
    settings = get_settings()
    budget = render_service.Budget(time.monotonic() + settings.render_timeout_s, settings.render_timeout_s,
                                   settings.render_memory_mb, settings.render_max_nodes,
                                   settings.render_max_edges)
    body = await request.body()
    try:
        out = await render_service.in_slot(
            _draw, body, budget, slots=settings.render_slots,
            wait_s=min(settings.render_queue_wait_s, budget.remaining()))
    except render_service.RenderError as exc:
        return SafeJSONResponse({"detail": str(exc)}, status_code=exc.status, headers=exc.headers)
    except ValidationError as exc:
        errors = exc.errors(include_url=False, include_context=False)
        for e in errors:
            e["loc"] = ("body", *e["loc"])
        return SafeJSONResponse({"detail": jsonable_encoder(errors)}, status_code=422)
    headers = {"X-Dagscope-Cache": "hit" if out.cached else "miss"}
    if out.layers:
        headers["X-Dagscope-Render-Sandbox"] = "; ".join(out.layers)
    return Response(out.content, media_type=out.media_type, headers=headers)
