"""Calls of captured graphs, recorded on their static-graph record: which inputs each call got,
what it returned, which way each control-flow point went, and — for a trace — whether the
branches it froze still hold for this input (a *stale* call: the trace runs the branch its
example took, and this input would have taken the other one). Found without running the user's
Python again: the trace graph keeps the node whose value Python read (`frozen`), so replaying the
graph computes what that condition is now.

Every capture kind records its calls the same way: a capture publishes its graph
(engine.capture.trail.graph_captured) and gets back the CallSite below; trace, script and
`engine.function` / `tf.function` run their graph op by op (engine.capture.trail.run: the run
itself tells the trail which way each `cond` went) and hand the site each call; `torch.compile`
runs generated kernels that tell nothing, so its trail is found by replaying the graph's control
flow on the reference interpreter (engine.capture.trail.replayed).

Recording is bounded and cheap in a loop: each graph keeps its first MAX_FIRST_CALLS calls and
the latest one, counts the rest, and summarizes them (tensor summaries, comparisons of captures
of one function on the same input) when the run finishes. A call holds its tensors' arrays
by reference, not copied, with their version counters: a tensor changed in place after the call
shows no value (null) rather than a value it did not have.
"""
from __future__ import annotations

import hashlib
import weakref

import numpy as np

from engine.capture import trail as trails
from engine.capture.trail import NO_DECISIONS, CallTrail, plain, replayed_branches
from engine.hooks import Message
from engine.record.recorder import current
from engine.record.values import tensor_json
from engine.user_code import user_line

MAX_FIRST_CALLS = 4
_logs: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()   # Recorder -> CallLog


def frozen_check(frozen: dict, was, now) -> dict:
    """One frozen read (its record entry and the array Python read while tracing) compared with
    its value on this call: does the trace's decision still hold?"""
    was, arr = np.asarray(was), np.asarray(now)
    if frozen["kind"] == "bool" and arr.size == 1 and was.size == 1:
        traced, current = bool(was.reshape(())), bool(arr.reshape(()))
        holds = traced == current
    else:
        traced, current = plain(was), plain(arr)
        same_shape = was.shape == arr.shape
        if same_shape and arr.dtype.kind == "f":
            holds = bool(np.allclose(was, arr, rtol=1e-5, atol=1e-8, equal_nan=True))
        else:
            holds = same_shape and bool(np.array_equal(was, arr))
    return {"node": frozen["node"], "line": frozen["line"], "kind": "frozen", "read": frozen["kind"],
            "code": frozen.get("code"), "traced": traced, "now": current, "holds": holds}


def stale_reason(check: dict) -> Message:
    """The one-line reason a frozen decision does not hold, in English with the page's message
    (the catalog's calls.stale_bool / calls.stale_value, as the calls table words it)."""
    line = check["line"]
    code = check["code"] or Message("calls.value_at_line", f"the value read at line {line}", line=line)
    if check["read"] == "bool":
        was, now = ("true" if check["traced"] else "false"), ("true" if check["now"] else "false")
        return Message("calls.stale_bool",
                       f"traced with {code} {was}; this input makes it {now}: "
                       f"the trace still runs the {was} branch (line {line})",
                       code=code, traced=Message(f"calls.{was}", was), now=Message(f"calls.{now}", now), line=line)
    traced, now = _short_repr(check["traced"]), _short_repr(check["now"])
    return Message("calls.stale_value",
                   f"while tracing, {code} read {traced} from a tensor; this input gives {now}: "
                   f"the trace still uses {traced}, so its result may be wrong (line {line})",
                   code=code, traced=traced, now=now, line=line)


def _short_repr(value, limit: int = 200) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def fingerprint(arrays: list) -> str:
    """Identifies a call's inputs (shapes, dtypes and bytes): equal inputs, equal fingerprints."""
    h = hashlib.blake2b(digest_size=8)
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(f"{a.dtype}{a.shape}".encode())
        h.update(a.tobytes())
    return h.hexdigest()


class _Held:
    """A tensor's array as a call saw it, held without copying; None later if changed in place."""

    __slots__ = ("array", "ref", "version")

    def __init__(self, tensor):
        self.array, self.ref, self.version = tensor.array, weakref.ref(tensor), tensor._version

    def value(self):
        t = self.ref()
        if t is not None and t.array is self.array and t._version != self.version:
            return None           # an in-place op wrote into this very array after the call
        return self.array


class _Call:
    """One call as it happened (its tensors held, not copied), summarized when the run finishes.
    Without a trail, `replay` is (graph, every input Tensor): the trail is found at the end by
    replaying the graph, if those inputs are unchanged by then (else its branches are null)."""

    def __init__(self, index, line, inputs, outputs, trail, frozen, replay=None):
        self.index, self.line = index, line
        self.held_inputs = [_Held(t) for t in inputs]
        self.held_outputs = [_Held(t) for t in outputs]
        self.inputs = self.outputs = None          # the arrays, read when summarized
        self.replay = (replay[0], [_Held(t) for t in replay[1]]) if trail is None and replay else None
        self.branches = trail.branches if trail is not None else None
        self.checks = [frozen_check(f, was, trail.values[f["node"]]) for f, was in frozen
                       if f["node"] in trail.values] if frozen and trail is not None else []
        self.summary: dict | None = None

    def _replay(self) -> None:
        graph, held = self.replay
        self.replay = None
        arrays = [h.value() for h in held]
        if all(a is not None for a in arrays):
            self.branches = replayed_branches(graph, arrays)

    def summarize(self) -> dict:
        if self.summary is None:
            if self.replay is not None:
                self._replay()
            self.inputs = [h.value() for h in self.held_inputs]
            self.outputs = [h.value() for h in self.held_outputs]
            self.held_inputs = self.held_outputs = None
            broken = [c for c in self.checks if not c["holds"]]
            known = all(a is not None for a in self.inputs)
            self.summary = {"index": self.index, "line": self.line,
                            "inputs": [tensor_json(a) for a in self.inputs],
                            "outputs": [tensor_json(a) for a in self.outputs],
                            "fingerprint": fingerprint(self.inputs) if known else None,
                            "branches": None if self.branches is None else self.checks + self.branches,
                            "stale": bool(broken), "reason": stale_reason(broken[0]) if broken else None,
                            "same_input": []}
        return self.summary


class CallSite:
    """One captured graph's record entry and its calls (the first few, then only the latest).
    `frozen`: a trace's (record entry, array read) per place Python read a tensor's value."""

    def __init__(self, recorder, entry: dict, target, capture: str, frozen: list):
        self.recorder = recorder
        self.entry, self.target, self.capture, self.frozen = entry, target, capture, frozen
        self.first: list[_Call] = []
        self.last: _Call | None = None
        self.total = 0
        self.warned = False
        entry["calls"], entry["calls_total"] = [], 0

    def active(self) -> bool:
        """Record this call? Only a call of the user's program, in the run that recorded the graph."""
        return not trails.capturing() and current() is self.recorder

    def watch(self) -> list:
        return [f["node"] for f, _ in self.frozen]

    def add(self, inputs: list, outputs: list, trail: CallTrail | None = None, replay=None) -> None:
        """One call: its argument Tensors, output Tensors and trail — or, for a call that ran out of
        sight, `replay`: (graph, every input Tensor in placeholder order) to find the trail from.
        A call kept among the first is replayed now (a training loop changes its parameters in
        place right after); a later one only if it turns out to be the last."""
        if trail is None and replay is None:
            trail = NO_DECISIONS
        elif trail is None and len(self.first) < MAX_FIRST_CALLS:
            trail = CallTrail()
            trail.branches = replayed_branches(replay[0], [t.array for t in replay[1]])
            replay = None
        call = _Call(self.total, user_line(), inputs, outputs, trail, self.frozen, replay)
        self.total += 1
        self.entry["calls_total"] = self.total
        if len(self.first) < MAX_FIRST_CALLS:
            self.first.append(call)
        else:
            self.last = call
        broken = [c for c in call.checks if not c["holds"]] if call.checks else None
        rec = current() if broken else None
        if broken and not self.warned and rec is not None:
            self.warned = True      # once per trace: a loop of stale calls says it once
            where = f"line {call.line}: " if call.line is not None else ""
            title, reason = self.entry.get("title", "a traced function"), stale_reason(broken[0])
            text = f"{where}stale trace: {title} was called on an input its frozen branch does not fit ({reason})"
            if call.line is None:
                rec.warn(Message("warning.stale_trace", text, title=title, reason=reason))
            else:
                rec.warn(Message("warning.stale_trace_at", text, line=call.line, title=title, reason=reason))

    def calls(self) -> list[_Call]:
        return self.first + ([self.last] if self.last is not None else [])


class CallLog:
    """The calls of every captured graph of one run; summarized by the recorder's finish()."""

    def __init__(self):
        self.sites: list[CallSite] = []
        self.finished = False

    def finish(self) -> None:
        if self.finished:             # the recorder may finish more than once: link once
            return
        self.finished = True
        for site in self.sites:
            site.entry["calls"] = [c.summarize() for c in site.calls()]
            site.entry["calls_total"] = site.total
        self._link_same_inputs()

    def _link_same_inputs(self) -> None:
        """Two captures of one function (trace, script, function, compile) called on the same input:
        say whether they agree."""
        seen: dict = {}
        for site in self.sites:
            for call in site.calls():
                if call.summarize()["fingerprint"] is not None:
                    seen.setdefault((id(site.target), call.summary["fingerprint"]), []).append((site, call))
        for group in seen.values():
            for site, call in group:
                for other_site, other in group:
                    if other_site.capture == site.capture:
                        continue
                    agree, diff = _compare(call.outputs, other.outputs)
                    call.summary["same_input"].append({"graph": other_site.entry["id"], "call": other.index,
                                                       "capture": other_site.capture, "agree": agree,
                                                       "max_abs_diff": diff})


def _compare(a: list, b: list) -> tuple[bool | None, float | None]:
    if any(x is None for x in a + b):
        return None, None         # an output changed in place after its call: not comparable
    if len(a) != len(b) or any(x.shape != y.shape for x, y in zip(a, b)):
        return False, None
    pairs = [(x.astype(np.float64), y.astype(np.float64)) for x, y in zip(a, b)]
    diffs = [float(np.max(np.abs(x - y))) for x, y in pairs if x.size]
    agree = all(np.allclose(x, y, rtol=1e-5, atol=1e-6, equal_nan=True) for x, y in pairs)
    diff = max(diffs) if diffs else 0.0
    return agree, diff if np.isfinite(diff) else None


def site_for(entry: dict | None, target, capture: str, frozen: list | None = None) -> CallSite | None:
    """Start recording the calls of the graph recorded as `entry` (None when it was not recorded)."""
    rec = current()
    if entry is None or rec is None:
        return None
    log = _logs.get(rec)
    if log is None:
        log = _logs[rec] = CallLog()
        rec.finishers.append(log.finish)
    site = CallSite(rec, entry, target, capture, list(frozen or []))
    log.sites.append(site)
    return site


def active(site: CallSite | None) -> bool:
    return site is not None and site.active()
