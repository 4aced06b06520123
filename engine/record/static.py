"""Static graphs in the run record: what a capture published (engine.capture.trail.graph_captured)
becomes a graph entry — the captured IR with the values of the call captured, its backward graph
and backprop steps, the pass snapshots, and for a compiled graph its kernels and timings — and a
CallSite that records the graph's later calls (engine/record/calls.py)."""
from __future__ import annotations

from engine import autograd
from engine.autodiff import backward_graph
from engine.capture.trail import Captured
from engine.hooks import Message
from engine.ir.graph import Graph
from engine.ir.interpreter import evaluate
from engine.ir.printer import format_graph
from engine.passes import run_pipeline
from engine.record import calls
from engine.record.backprop import backprop_steps
from engine.record.graph_json import graph_to_record
from engine.record.kernels import kernels_record, timings
from engine.record.recorder import current
from engine.record.snapshots import pass_snapshots

MAX_STATIC_GRAPHS = 12


def graph_captured(captured: Captured):
    """engine.hooks.GRAPH_CAPTURED: record the graph in the current run (if it has room for it) and
    return the CallSite for its calls, or None."""
    extra = dict(captured.extra)
    if captured.runner is not None and current() is not None and _room_left(current()):
        extra.update(_kernels_and_timings(captured))
    entry = record_static(captured.graph, captured.capture, captured.title, warnings=captured.warnings,
                          values=captured.values, inputs=captured.inputs, backward=captured.backward,
                          extra=extra, pipeline=captured.pipeline, differentiated=captured.differentiated)
    if not captured.called:
        return None
    return calls.site_for(entry, captured.target, captured.capture, captured.frozen)


def _room_left(rec) -> bool:
    return sum(1 for g in rec.graphs if g.get("kind") == "static") < MAX_STATIC_GRAPHS


def _failed(key: str, what: str, exc: Exception) -> Message:
    """`what: Error: message` (the error quoted as Python words it)."""
    said = f"{type(exc).__name__}: {exc}"
    return Message(key, f"{what}: {said}", quote=said[:900])


def record_static(graph: Graph, capture: str, title: str, *, warnings: list | None = None,
                  values: dict | None = None, backward: bool = True, extra: dict | None = None,
                  pipeline=None, differentiated=None, inputs: list | None = None) -> dict | None:
    """Add a static graph (captured IR, its backward, the pass snapshots) to the active run record.
    `values` (value id -> array) or `inputs` (placeholder order, evaluated by the interpreter) put
    the values of this call on the nodes. `pipeline` (a PipelineResult with its steps) and
    `differentiated` (an engine.autodiff.Backward of `graph`) are what a compile ran: shown as they
    are, not made again (without them the record runs the pipeline and autodiff itself)."""
    rec = current()
    if rec is None:
        return None
    recorded = sum(1 for g in rec.graphs if g.get("kind") == "static")
    if recorded >= MAX_STATIC_GRAPHS:       # bounded, like dynamic graphs: a capture in a loop stays cheap
        if recorded == MAX_STATIC_GRAPHS and not getattr(rec, "_static_cap_warned", False):
            rec._static_cap_warned = True
            rec.warn(Message("warning.static_graphs_cut", f"more than {MAX_STATIC_GRAPHS} static graphs were captured; "
                             f"only the first {MAX_STATIC_GRAPHS} are recorded", n=MAX_STATIC_GRAPHS))
        return None
    notes = list(warnings or [])
    if values is None and inputs is not None:
        try:
            values = evaluate(graph, [getattr(x, "array", x) for x in inputs])
        except Exception as exc:  # noqa: BLE001 - values are shown when they can be computed
            notes.append(_failed("warning.no_values", "values not shown", exc))
    bwd, steps = None, []
    if backward and any(v.dtype.kind == "f" for v in graph.inputs):
        try:
            if differentiated is None:
                differentiated = backward_graph(graph)
            bwd = backward_record(graph, differentiated)
        except Exception as exc:  # noqa: BLE001 - the record says why instead of failing the user's run
            notes.append(Message("warning.no_backward", f"no backward graph: {exc}", quote=str(exc)[:900]))
        arrays = [(values or {}).get(p.id) for p in graph.placeholders]
        if bwd is not None and all(a is not None for a in arrays):
            try:
                steps = backprop_steps(graph, differentiated, arrays)
            except Exception as exc:  # noqa: BLE001 - steps are shown when they can be computed
                notes.append(_failed("warning.no_steps", "no backprop steps", exc))
    passes = []
    try:
        passes = pass_snapshots(pipeline if pipeline is not None else run_pipeline(graph))
    except Exception as exc:  # noqa: BLE001
        notes.append(_failed("warning.pipeline_failed", "pass pipeline failed", exc))
    entry = {"kind": "static", "title": title, "capture": capture,
             "forward": graph_to_record(graph, values), "backward": bwd, "steps": steps,
             "passes": passes, "kernels": [], "timings": None, "warnings": notes, "ir": format_graph(graph)}
    entry.update(extra or {})
    return rec.add_graph(entry)


def backward_record(forward: Graph, backward) -> dict:
    """A captured graph's backward (engine.autodiff.Backward) as run-record Graph JSON, each node
    linked to the forward graph as an eager backward node is: `forward_node`, the forward node whose
    vjp made it (null for the rest); an incoming gradient says which output it is for (`grad_of`),
    a saved value which forward node computed it (`saved_from`)."""
    rec = graph_to_record(backward.graph, lean=True)
    producers = {v.id: (v.producer.id if v.producer is not None else v.id) for v in forward.values().values()}
    seeds = [n for n in backward.graph.placeholders if n.role == "grad"]
    grad_of = {n.id: producers.get(out.id) for n, out in zip(seeds, forward.outputs)}
    saved = [n for n in backward.graph.placeholders if n.role == "saved"]
    saved_from = {n.id: producers.get(vid) for n, vid in zip(saved, backward.saved)}
    for node in rec["nodes"]:
        node["forward_node"] = backward.forward_of.get(node["id"])
        if node["id"] in grad_of:
            node["grad_of"] = grad_of[node["id"]]
        elif node["id"] in saved_from:
            node["saved_from"] = saved_from[node["id"]]
    return rec


def _kernels_and_timings(captured: Captured) -> dict:
    """A compiled graph's kernels, and eager against compiled timed on the call captured."""
    runner = captured.runner
    if not hasattr(runner, "compiled"):
        return {}
    inputs = list(captured.inputs or [])

    def compiled():
        with autograd.no_grad():
            runner(*inputs)
    try:
        return {"kernels": kernels_record(runner), "timings": timings(captured.eager, compiled, runner)}
    except Exception as exc:  # noqa: BLE001 - timing is informative only
        return {"timings": None, "timing_error": f"{type(exc).__name__}: {exc}"}
