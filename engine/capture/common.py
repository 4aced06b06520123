"""What every capture shares: running a captured graph eagerly (op by op through the registry, so
autograd and outer captures see it), module parameters and outside parameters as graph inputs,
the guards that keep a capture honest (in-place writes, module state changed while capturing,
random masks frozen into constants). What a capture publishes for the run record is in trail.py."""
from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from engine.hooks import Message
from engine.ir.evaluator import Interpretation, bind, walk
from engine.ir.graph import CALL, CONSTANT, Graph
from engine.ir.interpreter import truth
from engine.ops.registry import OPS
from engine.tensor import Tensor, apply


def frozen_random_masks(graph: Graph) -> list[Message]:
    """Messages for each op whose random mask the capture froze into a constant."""
    found = []
    for n in graph.nodes:
        # an op whose random mask is drawn in Python and passed in (OpDef.random_mask_input): captured,
        # that mask is a constant, and every call would reuse one draw
        index = OPS[n.op].random_mask_input if n.kind == CALL and n.op in OPS else None
        if index is not None and n.inputs[index].producer is not None and n.inputs[index].producer.kind == CONSTANT:
            where = f"line {n.source_line}" if n.source_line is not None else n.id
            text = (f"{n.op} at {where}: its random mask was drawn once while capturing and is now a "
                    "constant, so every call reuses it (call .eval() before capturing, or run it eagerly)")
            found.append(Message("warning.frozen_random_mask", text, op=n.op, line=n.source_line)
                         if n.source_line is not None else Message("warning.frozen_random_mask_node", text, op=n.op,
                                                                    node=n.id))
        for sub in n.subgraphs.values():
            found += frozen_random_masks(sub)
    return found


def is_module(obj) -> bool:
    return hasattr(obj, "named_parameters") and hasattr(obj, "forward")


def module_state(module) -> list[tuple[str, Any]]:
    """(dotted name, tensor) of a module's parameters then buffers: the graph's "param" inputs."""
    state = list(module.named_parameters())
    if hasattr(module, "named_buffers"):
        state += [(n, b) for n, b in module.named_buffers() if b is not None]
    return state


class ReadOnlyGuard:
    """Makes captured tensors' arrays read-only while capturing, so an in-place op on one (which
    the graph would silently miss) fails loudly instead; `release()` restores every flag."""

    def __init__(self):
        self.arrays: list = []

    def protect(self, arr) -> None:
        if isinstance(arr, np.ndarray) and arr.flags.writeable:
            arr.flags.writeable = False
            self.arrays.append(arr)

    def release(self) -> None:
        pending = self.arrays
        while pending:                   # a view can become writeable only after its base
            left = []
            for a in pending:
                try:
                    a.flags.writeable = True
                except ValueError:
                    left.append(a)
            if len(left) == len(pending):
                break
            pending = left
        self.arrays = []


INPLACE_MESSAGE = ("an in-place operation changed a tensor that is part of the captured graph; the graph "
                   "records values, not mutations, so write it out of place (y = y + 1 instead of y += 1 or y.add_(1))")


def is_readonly_error(exc: BaseException) -> bool:
    return isinstance(exc, ValueError) and "read-only" in str(exc)


def snapshot_state(module) -> dict:
    """Copies of a module's parameters and buffers, to notice a capture that mutates them."""
    return {} if module is None else {n: np.array(t.array, copy=True) for n, t in module_state(module)}


def changed_state(module, snapshot: dict, restore: bool) -> list[str]:
    """Names whose data changed since `snapshot` (e.g. BatchNorm running statistics in training
    mode: a graph has no in-place updates, so capture must not pretend it does); `restore` puts
    the old values back."""
    changed = []
    if module is None:
        return changed
    for n, t in module_state(module):
        old = snapshot.get(n)
        if old is not None and (old.shape != t.array.shape or not np.array_equal(old, t.array, equal_nan=True)):
            changed.append(n)
            if restore:
                t.array[...] = old
    return changed


def is_parameter_like(t) -> bool:
    """A leaf tensor that requires grad (a parameter): captured by reference, not as a constant."""
    return bool(getattr(t, "requires_grad", False)) and getattr(t, "grad_fn", None) is None


def gather_inputs(kinds: list, args, module=None) -> list:
    """Tensors for a captured graph's placeholders, in order: ("arg", i) the call's i-th argument (a
    Python number becomes a 0-d tensor), ("state", name) the module's parameter or buffer as it is
    now, ("lifted", tensor) a parameter the function reads from outside, by reference."""
    state = dict(module_state(module)) if module is not None and any(k == "state" for k, _ in kinds) else {}
    out = []
    for kind, ref in kinds:
        if kind == "state":
            out.append(state[ref])
        elif kind == "lifted":
            out.append(ref)
        else:
            a = args[ref]
            out.append(a if isinstance(a, Tensor) else Tensor(np.asarray(a)))
    return out


def arguments(kinds: list, inputs: list) -> list:
    """The inputs that are the call's own arguments (not module state or lifted parameters)."""
    return [t for t, (kind, _) in zip(inputs, kinds) if kind == "arg"]


def param_names(fn) -> list[str]:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return []
    return [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]


class Tensors(Interpretation):
    """The graph evaluator on Tensors: each op through `engine.tensor.apply`, so the result carries
    an ordinary eager autograd graph (backward through a traced or scripted function equals eager
    backward) and an enclosing trace records the ops as if they were written inline."""

    def apply(self, name, inputs, attrs):
        return apply(name, *inputs, **attrs)

    def input(self, node, x):
        return x if isinstance(x, Tensor) else Tensor(np.asarray(x, dtype=node.out.dtype))

    def constant(self, node):
        return Tensor(node.value)

    def truth(self, x) -> bool:
        return truth(x.array)


TENSORS = Tensors()


def run_eager(graph: Graph, inputs: list, trail=None) -> list:
    """Run `graph` op by op on Tensors (inputs in placeholder order); returns output Tensors. A
    `trail` (engine.capture.trail.CallTrail) is told which way each top-level cond went, how often
    each loop ran, and the watched values."""
    env = walk(graph, bind(graph, inputs, TENSORS), TENSORS, trail.branch if trail is not None else None)
    if trail is not None:
        trail.values.update((vid, env[vid].array) for vid in trail.watch if vid in env)
    return [env[v.id] for v in graph.outputs]


def pack_outputs(outputs: list, structure):
    """Outputs in the shape the Python function returned them (one value, tuple or list)."""
    if structure == "single":
        return outputs[0]
    if structure == "list":
        return list(outputs)
    return tuple(outputs)
