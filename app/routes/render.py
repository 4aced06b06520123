"""POST /api/render: a Graph drawn as SVG, PNG or DOT; POST /api/render/batch: several drawn as SVG
by one `dot` (the page's rows and views asked for at the same moment).

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
from app.responses import SafeJSONResponse, worded
from app.schemas import MAX_BATCH_DRAWINGS, MAX_GRAPH_EDGES, MAX_GRAPH_NODES, RenderBatchRequest, RenderRequest
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


def _body(model) -> dict:
    return {"requestBody": {"required": True, "content": {"application/json": {
        "schema": _inline_refs(model.model_json_schema())}}}}


def _no_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"{text} is too large a number")
    return value


def _json(body: bytes):
    try:
        return json.loads(body, parse_constant=_no_constant, parse_float=_finite)
    except (ValueError, RecursionError) as exc:
        raise render_service.RenderError(f"The request is not valid JSON: {exc}", key="render_not_json",
                                         quote=str(exc)) from None


def _count(graphs: list) -> tuple[int, int]:
    """Nodes and edges of the graphs sent, counted before the (slower) validation of every node."""
    return tuple(sum(len(g.get(k)) if isinstance(g.get(k), list) else 0 for g in graphs if isinstance(g, dict))
                 for k in ("nodes", "edges"))


def _check_sendable(n_nodes: int, n_edges: int) -> None:
    if n_nodes > MAX_GRAPH_NODES or n_edges > MAX_GRAPH_EDGES:
        raise render_service.RenderTooLarge(
            f"The graph is too large to send: {n_nodes} nodes and {n_edges} edges (at most "
            f"{MAX_GRAPH_NODES} and {MAX_GRAPH_EDGES}); fold its modules (the page does) or draw a part.",
            key="render_too_large_to_send", nodes=n_nodes, edges=n_edges, max_nodes=MAX_GRAPH_NODES,
            max_edges=MAX_GRAPH_EDGES)


def _parse(body: bytes, budget: render_service.Budget) -> RenderRequest:
    data = _json(body)
    graph = data.get("graph") if isinstance(data, dict) else None
    if isinstance(graph, dict):
        _check_sendable(*_count([graph]))
        render_service.check_size(graph, budget)   # refused unread: validating it would be wasted
    return RenderRequest.model_validate(data)


def _parse_batch(body: bytes, budget: render_service.Budget) -> RenderBatchRequest:
    data = _json(body)
    parts = data.get("drawings") if isinstance(data, dict) else None
    if isinstance(parts, list):
        if len(parts) > MAX_BATCH_DRAWINGS:
            raise render_service.RenderTooLarge(
                f"{len(parts)} drawings were asked for at once (at most {MAX_BATCH_DRAWINGS}).",
                key="render_too_many_drawings", n=len(parts), max=MAX_BATCH_DRAWINGS)
        graphs = [p.get("graph") for p in parts if isinstance(p, dict) and isinstance(p.get("graph"), dict)]
        _check_sendable(*_count(graphs))
        render_service.check_total_size(graphs, budget)
    return RenderBatchRequest.model_validate(data)


def _draw(body: bytes, budget: render_service.Budget) -> render_service.Rendered:
    with render_service.python_turn(budget):
        req = _parse(body, budget)
        graph = req.graph.model_dump()
    return render_service.render(graph, req.format, req.direction, budget, req.lang)


def _draw_batch(body: bytes, budget: render_service.Budget) -> tuple[render_service.Drawings, float]:
    """The drawings, and the seconds spent reading and validating the request (its turn's wait too)."""
    started = time.monotonic()
    with render_service.python_turn(budget):
        req = _parse_batch(body, budget)
        parts = [(p.graph.model_dump(), p.direction, p.lang) for p in req.drawings]
    parse_s = time.monotonic() - started
    return render_service.render_many(parts, budget), parse_s


def _budget() -> render_service.Budget:
    settings = get_settings()
    return render_service.Budget(time.monotonic() + settings.render_timeout_s, settings.render_timeout_s,
                                 settings.render_memory_mb, settings.render_max_nodes,
                                 settings.render_max_edges)


async def _in_slot(fn, body: bytes, budget: render_service.Budget):
    """`fn(body, budget)` in a render slot; a refusal is the error's answer, never a 500."""
    settings = get_settings()
    try:
        return await render_service.in_slot(
            fn, body, budget, slots=settings.render_slots,
            wait_s=min(settings.render_queue_wait_s, budget.remaining()))
    except render_service.RenderError as exc:
        body = worded(str(exc), exc.key, **exc.params) if exc.key else {"detail": str(exc)}
        return SafeJSONResponse(body, status_code=exc.status, headers=exc.headers)
    except ValidationError as exc:
        errors = exc.errors(include_url=False, include_context=False)
        for e in errors:
            e["loc"] = ("body", *e["loc"])
        # (the errors themselves are pydantic's, for a program that asks; the page says what they mean)
        return SafeJSONResponse({"detail": jsonable_encoder(errors),
                                 "detail_message": {"key": "api.render_invalid", "params": {"n": len(errors)}}},
                                status_code=422)


@router.post("/api/render", openapi_extra=_body(RenderRequest))
async def render_graph(request: Request) -> Response:
    budget = _budget()
    out = await _in_slot(_draw, await request.body(), budget)
    if isinstance(out, Response):
        return out
    headers = {"X-Dagscope-Cache": "hit" if out.cached else "miss"}
    if out.layers:
        headers["X-Dagscope-Render-Sandbox"] = "; ".join(out.layers)
    return Response(out.content, media_type=out.media_type, headers=headers)


@router.post("/api/render/batch", openapi_extra=_body(RenderBatchRequest))
async def render_batch(request: Request) -> Response:
    """Several SVG drawings at once, in the order asked: {"svgs": [text, ...]}. The page asks for
    the drawings it needs at the same moment (a view's rows, Forward and Backward) together."""
    budget = _budget()
    answer = await _in_slot(_draw_batch, await request.body(), budget)
    if isinstance(answer, Response):
        return answer
    out, parse_s = answer
    took_s = budget.timeout_s - budget.remaining()
    # how many drawings came from the cache; where the time went (bench/page.py reads it): the
    # request read and validated, the DOT written, dot, its SVG checked, all of it (a slot's wait too)
    timing = {"parse": parse_s, "source": out.source_s, "dot": out.dot_s, "clean": out.clean_s, "total": took_s}
    headers = {"X-Dagscope-Cache": f"{out.cached}/{len(out.svgs)}",
               "Server-Timing": ", ".join(f"{k};dur={v * 1000:.1f}" for k, v in timing.items())}
    if out.layers:
        headers["X-Dagscope-Render-Sandbox"] = "; ".join(out.layers)
    return SafeJSONResponse({"svgs": [d.decode() for d in out.svgs]}, headers=headers)
