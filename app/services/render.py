"""Graph JSON -> DOT -> SVG/PNG with Graphviz: bounded, sanitised, cached by the DOT text's hash.

Three walls between a run's strings and the page: the DOT text quotes every string as plain
text (dot_source), `dot` runs confined and time-limited (dot_process), and its SVG is rewritten
from an allowlist (svg_clean). A drawing has one deadline for all of it, its wait for a slot
included; at most `render_slots` drawings are made at once (about one per core), the rest wait
briefly and are then told to come back (503 with Retry-After)."""
from __future__ import annotations

import asyncio
import contextlib
import hashlib
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass

from fastapi.concurrency import run_in_threadpool

from app.services.dot_process import INSTALL_GRAPHVIZ, WARM, DotFailed, DotLimits, run_dot
from app.services.dot_source import to_dot
from app.services.svg_clean import SvgRefused, clean_svg

_CACHE_SIZE = 256                 # drawings kept, and at most this many bytes of them
_CACHE_BYTES = 64 * 1024 * 1024   # (one drawing of the largest graph is a few MB)
_cache: "OrderedDict[str, tuple[bytes, tuple]]" = OrderedDict()
_cache_bytes = 0
_cache_lock = threading.Lock()
_POLL_S = 0.02            # how often a waiting drawing looks for a free slot
_SVG_CHECK_S = 0.2        # kept from dot's time for svg_clean (0.2 s for the largest drawing)


class RenderError(Exception):
    """The drawing could not be made; the message says why in plain words."""
    status = 422

    def __init__(self, message: str, headers: dict | None = None, key: str | None = None, **params):
        super().__init__(message)
        self.headers = headers or {}
        self.key, self.params = key, params          # its wording for the page, where it has one


class RenderTooLarge(RenderError):
    status = 413


class RenderBusy(RenderError):
    status = 503


@dataclass
class Rendered:
    content: bytes
    media_type: str
    cached: bool
    layers: tuple = ()             # how dot was confined (app/sandbox/confine.py names them)


@dataclass
class Budget:
    """What one drawing may use: its deadline (time.monotonic()) and dot's memory."""
    deadline: float
    timeout_s: float                 # the whole budget, for messages
    memory_mb: int = 1024
    max_nodes: int = 2000
    max_edges: int = 6000

    def remaining(self) -> float:
        return self.deadline - time.monotonic()


# The Python half of a drawing (reading, validating and collapsing the graph, writing DOT,
# checking the SVG) holds the GIL: two render threads doing it at once starve the event loop,
# and /healthz with it, twice as much. So it is done one drawing at a time; dot (a process) is not.
_python_turn = threading.Lock()


@contextlib.contextmanager
def python_turn(budget: "Budget"):
    if not _python_turn.acquire(timeout=max(0.0, budget.remaining())):
        raise RenderBusy(f"The server could not start this drawing within {budget.timeout_s:g} s; "
                         "try again in a moment.", headers={"Retry-After": "2"}, key="render_not_started",
                         s=f"{budget.timeout_s:g}")
    try:
        yield
    finally:
        _python_turn.release()


_slots: dict[int, threading.BoundedSemaphore] = {}
_slots_lock = threading.Lock()


def _semaphore(count: int) -> threading.BoundedSemaphore:
    with _slots_lock:
        return _slots.setdefault(count, threading.BoundedSemaphore(count))


async def in_slot(fn, *args, slots: int, wait_s: float, retry_after_s: int = 2):
    """`fn(*args)` in the threadpool once one of `slots` is free, waiting at most `wait_s`.

    The wait is spent on the event loop (polling, holding no thread); the slot is released by
    the thread when `fn` ends, so a request given up meanwhile still counts until dot is gone."""
    sem = _semaphore(max(1, slots))
    give_up = time.monotonic() + max(0.0, wait_s)
    while not sem.acquire(blocking=False):
        if time.monotonic() >= give_up:
            raise RenderBusy(f"The server is drawing {slots} graphs already; try again in a moment.",
                             headers={"Retry-After": str(retry_after_s)}, key="render_busy", n=slots)
        await asyncio.sleep(_POLL_S)
    started = False

    def job():
        nonlocal started
        started = True
        try:
            return fn(*args)
        finally:
            sem.release()
    try:
        return await run_in_threadpool(job)
    except BaseException:
        if not started:          # cancelled before a thread took it
            sem.release()
        raise


def check_size(graph: dict, budget: Budget) -> None:
    n_nodes, n_edges = (len(graph.get(k)) if isinstance(graph.get(k), list) else 0 for k in ("nodes", "edges"))
    if n_nodes > budget.max_nodes or n_edges > budget.max_edges:
        raise RenderTooLarge(
            f"The graph is too large to draw: {n_nodes} nodes and {n_edges} edges (at most "
            f"{budget.max_nodes} and {budget.max_edges}); fold its modules (the page does) or draw a part.",
            key="render_too_large", nodes=n_nodes, edges=n_edges, max_nodes=budget.max_nodes, max_edges=budget.max_edges)


def render(graph: dict, fmt: str, direction: str, budget: Budget, lang: str = "en") -> Rendered:
    check_size(graph, budget)
    with python_turn(budget):
        source = to_dot(graph, direction, lang)
    if fmt == "dot":
        return Rendered(source.encode(), "text/vnd.graphviz", False)
    key = hashlib.sha256(f"{fmt}\0{source}".encode()).hexdigest()
    with _cache_lock:
        if key in _cache:
            _cache.move_to_end(key)
            content, layers = _cache[key]
            return Rendered(content, _media_type(fmt), True, layers)
    with WARM.held():          # the next dot once this drawing is checked too
        try:
            out, layers = run_dot(fmt, source.encode(), DotLimits(budget.remaining() - _SVG_CHECK_S, budget.memory_mb))
        except DotFailed as exc:
            raise _failure(exc, len(graph.get("nodes", [])), budget) from None
        if fmt == "svg":
            try:
                with python_turn(budget):
                    out = clean_svg(out)
            except SvgRefused as exc:
                raise _refused(exc) from None
    _remember(key, out, tuple(layers))
    return Rendered(out, _media_type(fmt), False, tuple(layers))


def check_total_size(graphs: list[dict], budget: Budget) -> None:
    """Drawings made by one `dot` together are bounded as one graph of all their nodes is."""
    if len(graphs) == 1:
        return check_size(graphs[0], budget)
    n_nodes, n_edges = (sum(len(g.get(k)) if isinstance(g.get(k), list) else 0 for g in graphs)
                        for k in ("nodes", "edges"))
    if n_nodes > budget.max_nodes or n_edges > budget.max_edges:
        raise RenderTooLarge(
            f"The drawings are too large to make together: {n_nodes} nodes and {n_edges} edges (at "
            f"most {budget.max_nodes} and {budget.max_edges}); ask for them one at a time, fold "
            "their modules (the page does) or draw a part.",
            key="render_batch_too_large", nodes=n_nodes, edges=n_edges, max_nodes=budget.max_nodes,
            max_edges=budget.max_edges)


# dot writes one SVG document per graph of its input, each ending with this line; a label's `<`
# is always written `&lt;` (in text, comments and attributes), so it cannot end one early
_SVG_END = b"</svg>\n"


@dataclass
class Drawings:
    svgs: list[bytes]              # in the order asked
    cached: int                    # how many came from the cache
    layers: tuple = ()             # how dot was confined
    dot_s: float = 0.0             # dot's own time (wall clock), for the Server-Timing header
    source_s: float = 0.0          # writing the DOT text (wall clock, its Python turn's wait included)
    clean_s: float = 0.0           # checking dot's SVG (svg_clean; the same)


def render_many(parts: list[tuple[dict, str, str]], budget: Budget) -> Drawings:
    """SVG drawings of `parts` [(graph, direction, lang)]. The ones not cached are laid out by one
    `dot` process (its input holds one digraph each), so a view's rows and both DAGs pay for one
    confined start, which costs more than laying out a small graph."""
    check_total_size([g for g, _, _ in parts], budget)
    started = time.monotonic()
    with python_turn(budget):
        keys = []
        sources = []
        for graph, direction, lang in parts:
            source = to_dot(graph, direction, lang)
            sources.append(source)
            keys.append(hashlib.sha256(f"svg\0{source}".encode()).hexdigest())
    source_s = time.monotonic() - started
    out: list[bytes | None] = [None] * len(parts)
    layers: tuple = ()
    with _cache_lock:
        for i, key in enumerate(keys):
            if key in _cache:
                _cache.move_to_end(key)
                out[i], layers = _cache[key]
    missing = [i for i in range(len(parts)) if out[i] is None]
    # the same drawing asked twice in one batch is laid out once
    first = {}
    for i in missing:
        first.setdefault(keys[i], i)
    todo = sorted(first.values())
    dot_s = clean_s = 0.0
    with WARM.held():          # the next dot once these drawings are checked too
        if todo:
            started = time.monotonic()
            try:
                drawn, found = run_dot("svg", "".join(sources[i] for i in todo).encode(),
                                       DotLimits(budget.remaining() - _SVG_CHECK_S, budget.memory_mb))
            except DotFailed as exc:
                raise _failure(exc, sum(len(parts[i][0].get("nodes", [])) for i in todo), budget) from None
            dot_s = time.monotonic() - started
            layers = tuple(found)
            documents = drawn.split(_SVG_END)
            if len(documents) != len(todo) + 1 or documents[-1].strip():
                raise RenderError(f"Graphviz drew {len(documents) - 1} of the {len(todo)} graphs asked for.",
                                  key="render_partial", drawn=len(documents) - 1, asked=len(todo))
            started = time.monotonic()
            with python_turn(budget):
                for i, document in zip(todo, documents):
                    if budget.remaining() <= 0:       # checking many drawings is bounded by the deadline too
                        raise _failure(DotFailed("timeout"), sum(len(parts[j][0].get("nodes", [])) for j in todo), budget)
                    try:
                        out[i] = clean_svg(document + _SVG_END)
                    except SvgRefused as exc:
                        raise _refused(exc) from None
                    _remember(keys[i], out[i], layers)
            clean_s = time.monotonic() - started
            for i in missing:
                out[i] = out[first[keys[i]]]
    return Drawings(out, len(parts) - len(missing), layers, dot_s, source_s, clean_s)


def _remember(key: str, content: bytes, layers: tuple) -> None:
    global _cache_bytes
    with _cache_lock:
        if key in _cache or len(content) > _CACHE_BYTES // 4:
            return
        _cache[key] = (content, layers)
        _cache_bytes += len(content)
        while len(_cache) > _CACHE_SIZE or _cache_bytes > _CACHE_BYTES:
            _cache_bytes -= len(_cache.popitem(last=False)[1][0])


def _failure(exc: DotFailed, n: int, budget: Budget) -> RenderError:
    if exc.reason == "timeout":
        return RenderError(f"The graph is too large to draw within {budget.timeout_s:g} s "
                           f"({n} nodes); fold its modules (the page does) or draw a part.",
                           key="render_too_slow", s=f"{budget.timeout_s:g}", n=n)
    # (Graphviz's and the system's own words are a `quote`: code in every language)
    if exc.reason == "killed":
        return RenderError(f"Graphviz was stopped ({exc.detail}) drawing this graph ({n} nodes): it "
                           f"needed more than {budget.memory_mb} MB or its CPU time; fold its "
                           "modules (the page does) or draw a part.",
                           key="render_killed", quote=exc.detail, n=n, mb=budget.memory_mb)
    if exc.reason == "missing":
        return RenderError(exc.detail, key="render_no_graphviz", quote=INSTALL_GRAPHVIZ)
    return RenderError("Graphviz could not draw this graph: " + exc.detail, key="render_dot_failed", quote=exc.detail)


def _refused(exc: SvgRefused) -> RenderError:
    return RenderError(f"Graphviz's drawing was refused: {exc}.", key="render_svg_refused", quote=str(exc))


def _media_type(fmt: str) -> str:
    return {"svg": "image/svg+xml", "png": "image/png"}.get(fmt, "text/plain")
