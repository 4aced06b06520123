"""What a capture tells the layers above it, through engine.hooks: the graph it made
(`graph_captured`, which the recorder turns into a static graph of the run record and answers
with the object that records the graph's calls), its warnings (`warn`), and for each later call of
the graph what that call did (`run`: a `CallTrail` of the way each top-level cond went and how
often each loop ran). Capture imports nothing of the recorder: it publishes, the recorder listens
(engine/record/static.py, engine/record/calls.py).

`torch.compile` runs generated kernels that tell nothing, so its trail is found by replaying the
graph's control flow on the reference interpreter (`replayed`), and only for graphs that have
control flow.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from engine import hooks
from engine.capture.common import run_eager
from engine.ir.graph import COND, WHILE, Graph
from engine.ir.interpreter import evaluate

_capturing = 0                  # > 0 while a trace or script compile runs: calls then are not the user's


def capture_started() -> None:
    """Calls of captured graphs made while capturing (on shadow tensors, or inlined into another
    trace) are not calls of the user's program: not recorded until capture_ended()."""
    global _capturing
    _capturing += 1


def capture_ended() -> None:
    global _capturing
    _capturing -= 1


def capturing() -> bool:
    return _capturing > 0


@dataclass
class Captured:
    """A static graph a capture made, with what the run record shows beside it."""

    graph: Graph
    capture: str                      # "trace", "script", "function", "compile", "session"
    title: str
    target: Any = None                # the user's function or module (captures of one target are compared)
    warnings: list = field(default_factory=list)
    values: dict | None = None        # value id -> array of the call captured (a trace's)
    inputs: list | None = None        # or that call's inputs in placeholder order, to evaluate
    backward: bool = True             # show its backward graph (when it has float inputs)
    extra: dict = field(default_factory=dict)   # more fields of the record's graph entry
    frozen: list = field(default_factory=list)  # a trace's (frozen-read entry, array read) pairs
    runner: Any = None                # compile: what runs it (its kernels; called to be timed)
    eager: Callable[[], object] | None = None   # compile: the user's function run eagerly, to time
    pipeline: Any = None              # the pass pipeline's result that was compiled (PipelineResult with its
                                      # steps), shown instead of a run of the record's own; None: run one
    differentiated: Any = None        # the backward that was compiled (engine.autodiff.Backward), likewise
    called: bool = True               # False: a graph that is never called (a script's before any call)


def recording() -> bool:
    """Is anyone listening for captured graphs (a run being recorded)?"""
    return bool(hooks.GRAPH_CAPTURED)


def graph_captured(graph: Graph, capture: str, title: str, **details):
    """Publish a captured graph; returns the call site that records its calls, or None."""
    if not hooks.GRAPH_CAPTURED:
        return None
    captured = Captured(graph, capture, title, **details)
    for observer in list(hooks.GRAPH_CAPTURED):
        site = observer(captured)
        if site is not None:
            return site
    return None


def warn(message: str) -> None:
    """Publish a warning for the run record."""
    for observer in list(hooks.WARNING):
        observer(message)


class CallTrail:
    """What one run of a captured graph did (filled by engine.capture.common.run_eager)."""

    def __init__(self, watch=()):
        self.watch = set(watch)                 # value ids whose arrays to keep (a trace's frozen reads)
        self.values: dict = {}
        self.branches: list[dict] = []

    def branch(self, node, **what) -> None:
        self.branches.append({"node": node.id, "line": node.source_line,
                              "kind": "cond" if "taken" in what else "while", **what})


NO_DECISIONS = CallTrail()      # the trail of a graph without control flow (shared: never written to)


def has_control_flow(graph) -> bool:
    """Does a call of `graph` take decisions a trail records (a top-level cond or while_loop)?"""
    return any(n.kind in (COND, WHILE) for n in graph.nodes)


def replayed(graph, arrays: list) -> CallTrail:
    """The trail of a call that ran somewhere it could not be watched (generated kernels): the graph
    replayed on the reference interpreter, noting each top-level cond's branch and loop's count."""
    trail = CallTrail()
    evaluate(graph, arrays, decided=trail.branch)
    return trail


def replayed_branches(graph, arrays: list) -> list | None:
    """`replayed(...).branches`, or None (unknown) if the replay fails: recording must never break
    the user's call."""
    try:
        return replayed(graph, arrays).branches
    except Exception:  # noqa: BLE001 - e.g. a runaway loop: the branches stay unknown
        return None


def run(site, graph, inputs: list, arguments: list, results: int | None = None) -> list:
    """Run a captured graph op by op (engine.capture.common.run_eager) on `inputs` (placeholder
    order) and, when `site` (what graph_captured returned) records this call, hand it the call:
    `arguments` are the inputs that are the call's own arguments (not parameters or variables),
    shown and fingerprinted; the first `results` outputs (all by default) are what the function
    returned."""
    if site is None or not site.active():
        return run_eager(graph, inputs)
    trail = CallTrail(site.watch())
    outputs = run_eager(graph, inputs, trail)
    site.add(arguments, outputs[:results], trail)
    return outputs


def json_safe(x):
    """Numbers, bools and nested lists as the run record writes them (NaN and infinities as strings)."""
    if isinstance(x, list):
        return [json_safe(y) for y in x]
    if isinstance(x, float) and not np.isfinite(x):
        return "nan" if np.isnan(x) else ("inf" if x > 0 else "-inf")
    return x


def plain(value):
    """A tensor's value read by Python, as JSON: a number or bool, or nested lists."""
    arr = np.asarray(value)
    return json_safe(arr.reshape(()).item() if arr.size == 1 else arr.tolist())
