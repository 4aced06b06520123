"""Data flow without autograd: what a program that computes with tensors, but never with one that
requires grad, built — so it draws a graph too (issue 15: d2l's pooling chapter, the tensor tutorial,
the polynomial fitted with hand-written gradients).

PyTorch keeps no graph for such tensors (no grad_fn), so neither does the engine. While a recorded
run has called no backward, the recorder listens to every op (hooks.OP_APPLIED) and keeps, in a
bounded trail, which op made which tensor from which; at the end of a run that drew nothing else,
the ops that made the tensors the program kept (its variables), its last model output and its last
value read are drawn, as one forward graph. The graph says what it is: its op nodes have no grad_fn,
it has no backward and no steps, and a note explains why (docs/run-record.md).

Following costs each op a few microseconds (a tiny op's time again), so it stops at the first backward,
and gives up past MAX_FOLLOWED ops. Bounded twice: the trail forgets its oldest ops past MAX_OPS or MAX_BYTES of results it keeps alive,
and the drawing holds at most MAX_DRAWN ops, nearest the tensors drawn first (a tensor whose op is
past either bound is drawn as a leaf, with its value).
"""
from __future__ import annotations

import collections
import sys

from engine import hooks
from engine.nn_context import _stack as _module_stack
from engine.tensor import Tensor
from engine.user_code import USER_FILENAME

MAX_OPS = 4096
MAX_FOLLOWED = 50_000     # past this many ops without a backward, following costs more than it shows
MAX_BYTES = 64 * 2 ** 20
MAX_DRAWN = 150
MAX_ROOTS = 6

NOTE = ("No tensor here requires grad (nor does a GradientTape watch one), so no gradient graph was recorded: "
        "PyTorch gives these results no grad_fn and backward() would have nothing to walk. This is the data flow "
        "Dagscope saw run: the ops that made the tensors the program kept, its last model output and its last "
        "value read{cut}.")


# How an op's result was made: (seq, op, its inputs as passed — kept alive while the trail keeps this —,
# the result, the user's line, the nn.Module path). A tuple: observe() runs for every op, so it stays cheap.
SEQ, OP, INPUTS, OUT, LINE, MODULE = range(6)


class Trail:
    """hooks.OP_APPLIED observer (`observe`): the recent ops whose results have no grad_fn."""

    def __init__(self):
        self.by_out: dict[int, tuple] = {}          # id(result) -> how it was made (results are kept alive)
        self.order: collections.deque[tuple] = collections.deque()
        self.nbytes = 0
        self._seq = 0
        self.gave_up = False

    def observe(self, op, inputs, attrs, out) -> None:
        if out.grad_fn is not None or id(out) in self.by_out:
            return                      # autograd's graph has it (or an op returned its input as it is)
        frame = sys._getframe(1)        # the user's line (engine.user_code.user_line, inlined)
        while frame is not None and frame.f_code.co_filename != USER_FILENAME:
            frame = frame.f_back
        self._seq += 1
        if self._seq > MAX_FOLLOWED:
            self.give_up()
            return
        made = (self._seq, op, inputs, out, frame.f_lineno if frame is not None else None,
                (_module_stack[-1] or None) if _module_stack else None)
        self.by_out[id(out)] = made
        self.order.append(made)
        self.nbytes += out.array.nbytes
        if len(self.order) > MAX_OPS or self.nbytes > MAX_BYTES:
            self._forget_oldest()

    def _forget_oldest(self) -> None:
        while len(self.order) > MAX_OPS or (self.nbytes > MAX_BYTES and len(self.order) > 1):
            gone = self.order.popleft()
            self.nbytes -= gone[OUT].array.nbytes
            if self.by_out.get(id(gone[OUT])) is gone:
                del self.by_out[id(gone[OUT])]

    def give_up(self) -> None:
        """Stop following (each op costs a few microseconds more while followed): a program this long
        without a gradient draws no data flow."""
        if self.observe in hooks.OP_APPLIED:
            hooks.OP_APPLIED.remove(self.observe)
        self.gave_up = True
        self.clear()

    def made(self, t) -> tuple | None:
        return self.by_out.get(id(t)) if isinstance(t, Tensor) else None

    def clear(self) -> None:
        self.by_out.clear()
        self.order.clear()
        self.nbytes = 0


def roots(trail: Trail, namespace: dict, extra: list) -> list[tuple[str, Tensor]]:
    """What to draw: the program's variables that hold an op's result no other such variable's ops made,
    and the `extra` (name, tensor) pairs (last model output, last value read); the latest first."""
    held = [(k, v) for k, v in namespace.items()
            if isinstance(v, Tensor) and not k.startswith("_") and trail.made(v) is not None]
    inner = set()
    for _, t in held:
        for made in _walk(trail, [t], MAX_DRAWN)[1:]:
            inner.add(id(made[OUT]))
    chosen = {id(t): (k, t) for k, t in held if id(t) not in inner}
    for k, t in extra:
        if trail.made(t) is not None and id(t) not in chosen and id(t) not in inner:
            chosen[id(t)] = (k, t)
    ordered = sorted(chosen.values(), key=lambda kt: -trail.made(kt[1])[SEQ])
    return ordered[:MAX_ROOTS]


def _walk(trail: Trail, tensors: list, limit: int) -> list[tuple]:
    """The ops that made `tensors`, breadth first from them, at most `limit`."""
    seen, out = set(), []
    queue = collections.deque(trail.made(t) for t in tensors)
    while queue and len(out) < limit:
        made = queue.popleft()
        if made is None or id(made) in seen:
            continue
        seen.add(id(made))
        out.append(made)
        queue.extend(trail.made(t) for t in made[INPUTS])
    return out


def graph(trail: Trail, named_roots: list[tuple[str, Tensor]], names: dict[int, str], tensor_json) -> dict:
    """The forward graph of `named_roots` (run-record nodes and edges, values through `tensor_json`)."""
    drawn = _walk(trail, [t for _, t in named_roots], MAX_DRAWN)
    cut = len(drawn) >= MAX_DRAWN
    drawn.sort(key=lambda m: m[SEQ])                    # inputs before their users
    in_drawing = {id(m[OUT]) for m in drawn}
    root_ids = {id(t) for _, t in named_roots}
    nodes, edges, ids = [], [], {}

    def node_id(t) -> str:
        if id(t) not in ids:
            ids[id(t)] = f"n{len(ids) + 1}"
            if id(t) not in in_drawing:                  # a leaf: made outside any op, or past the bounds
                name = names.get(id(t))
                label = repr(t.array.item()) if t.array.ndim == 0 and name is None else name or "const"
                nodes.append({"id": ids[id(t)], "op": "const", "label": label, "kind": "const",
                              "shape": list(t.array.shape), "dtype": str(t.array.dtype), "module": None,
                              "line": None, "value": tensor_json(t.array), "grad": None, "name": name})
        return ids[id(t)]

    for seq, op, inputs, out, line, module in drawn:
        inputs = [t for t in inputs if isinstance(t, Tensor)]
        for t in inputs:
            node_id(t)
        nid = ids.setdefault(id(out), f"n{len(ids) + 1}")
        nodes.append({"id": nid, "op": op.name, "label": op.name, "kind": "output" if id(out) in root_ids else "op",
                      "shape": list(out.array.shape), "dtype": str(out.array.dtype), "module": module, "line": line,
                      "value": tensor_json(out.array), "grad": None, "name": names.get(id(out)), "grad_fn": None,
                      "formula": op.formula})
        for t in inputs:
            edges.append({"src": ids[id(t)], "dst": nid, "shape": list(t.array.shape)})
    title = ", ".join(name for name, _ in named_roots)
    cut_note = f"; the {MAX_DRAWN} ops nearest them are drawn" if cut else ""
    return {"kind": "dynamic", "title": f"{title} (data flow only: no gradient recorded)",
            "capture": None, "forward": {"nodes": nodes, "edges": edges}, "backward": None, "steps": [],
            "passes": [], "kernels": [], "timings": None, "warnings": [NOTE.format(cut=cut_note)]}
