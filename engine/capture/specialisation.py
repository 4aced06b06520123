"""One specialisation cache for every front-end that captures a graph per input signature:
`engine.function` (graph_function.py), `torch.compile` (compiler.py), `torch.jit.script`
(scripting.py) and `tf.function` (engine/compat/tensorflow/function.py).

Dagscope's graphs have concrete shapes, so a function is captured again for each new *signature*:
each tensor argument's shape and dtype (and, for torch.compile, whether it requires grad), each
Python argument's value, each object argument's identity, and what else the capture depends on
(grad mode, a module's train/eval flag and its parameters). `signature` builds that key as a tuple
of named parts; `Specialisations` keeps the entries made for each key and, for a new key, says why
the last call's entry did not fit.

The reason is worded as PyTorch's guard failures are (what `TORCH_LOGS=recompiles` prints under
"triggered by the following guard failure(s)"): `tensor 'x' size mismatch at index 0. expected 2,
actual 3`, `tensor 'x' dtype mismatch. expected float32, actual float64`, `tensor 'x'
requires_grad mismatch. expected requires_grad=0`, `GLOBAL_STATE changed: grad_mode`, and for a
Python value the guard that failed, `k == 2.0`. (TensorFlow gives no reason for a retrace; it
only warns when calls keep retracing.) Where PyTorch writes `L['x']` (the frame's locals) this
writes the parameter's name, and dtypes are numpy's names, which both facades' users read.
"""
from __future__ import annotations

from typing import Any, Callable, Hashable

import numpy as np

from engine.hooks import Message
from engine.ir.graph import format_spec
from engine.ops.registry import Spec
from engine.tensor import Tensor

# the kinds of signature parts: (name, kind, *data)
TENSOR = "tensor"        # (name, TENSOR, shape, dtype, requires_grad or None when not guarded)
VALUE = "value"          # (name, VALUE, repr): plain Python data, specialised by value
OBJECT = "object"        # (name, OBJECT, type name, id): anything else, by identity
BOOL = "bool"            # (name, BOOL): a bool that stays a graph input, so any bool fits
GLOBAL = "global"        # (name, GLOBAL, value): global state the graph depends on (grad mode)

_PLAIN = (bool, int, float, complex, str, bytes, type(None), np.generic)


def _plain(v) -> bool:
    if isinstance(v, _PLAIN):
        return True
    if isinstance(v, (tuple, list)):
        return all(_plain(x) for x in v)
    if isinstance(v, dict):
        return all(_plain(k) and _plain(x) for k, x in v.items())
    return False


def tensor_part(name: str, t, requires_grad: bool = False) -> tuple:
    # dtype objects, not their names: str(dtype) costs a microsecond per tensor per call
    a = t.array
    return (name, TENSOR, a.shape, a.dtype, t.requires_grad if requires_grad else None)


def value_part(name: str, v) -> tuple:
    """A Python argument's part: its value for plain data (numbers, strings, and tuples, lists and
    dicts of them: a list changed in place is a new signature), its identity otherwise (two
    different modules that print alike must not share a graph)."""
    if _plain(v):
        return (name, VALUE, repr(v))
    return (name, OBJECT, type(v).__name__, id(v))


def signature(names, values, *, requires_grad: bool = False, bool_inputs: bool = False,
              by_identity: Callable[[Any], bool] | None = None, guards: tuple = ()) -> tuple:
    """The key of one call: `guards` (parts made with tensor_part/value_part or (name, GLOBAL,
    value)), then a part per argument. `requires_grad`: a tensor's requires_grad is part of its
    key (torch.compile's backward depends on it); `bool_inputs`: a bool is a graph input, not
    specialised (torch.jit.script); `by_identity(v)`: such arguments are keyed by identity whatever
    they hold (tf.Variables)."""
    key = list(guards)
    for name, v in zip(names, values):
        if isinstance(v, Tensor):
            a = v.array
            key.append((name, TENSOR, a.shape, a.dtype, v.requires_grad if requires_grad else None))
        elif bool_inputs and isinstance(v, bool):
            key.append((name, BOOL))
        elif by_identity is not None and by_identity(v):
            key.append((name, OBJECT, type(v).__name__, id(v)))
        else:
            key.append(value_part(name, v))
    return tuple(key)


def describe(part: tuple) -> str:
    """One part as the page shows a signature: `f32[2, 3]`, a Python value, `another Module object`."""
    kind = part[1]
    if kind == TENSOR:
        return format_spec(Spec(tuple(part[2]), np.dtype(part[3])))
    if kind == VALUE:
        return part[2]
    if kind == OBJECT:
        return f"a {part[2]}"
    if kind == BOOL:
        return "bool"
    return repr(part[2])


def _kind_name(part: tuple) -> str:
    return {TENSOR: "Tensor", VALUE: "a Python value", OBJECT: part[2] if len(part) > 2 else "object",
            BOOL: "bool", GLOBAL: "global state"}[part[1]]


def guard_failure(old: tuple, new: tuple) -> str:
    """Why `new` does not fit an entry made for `old` (parts of one name), in PyTorch's words."""
    name = new[0]
    if old[1] != new[1]:
        return f"type({name}) mismatch. expected {_kind_name(old)}, actual {_kind_name(new)}"
    kind = old[1]
    if kind == GLOBAL:
        return f"GLOBAL_STATE changed: {name}"
    if kind == VALUE:
        return f"{name} == {old[2]}"
    if kind == OBJECT:
        return f"{name} is another {new[2]} object" if old[2] == new[2] else \
            f"type({name}) mismatch. expected {old[2]}, actual {new[2]}"
    if kind != TENSOR:
        return f"{name} changed"
    _, _, shape, dtype, grad = old
    _, _, new_shape, new_dtype, new_grad = new
    if dtype != new_dtype:
        return f"tensor '{name}' dtype mismatch. expected {np.dtype(dtype).name}, actual {np.dtype(new_dtype).name}"
    if grad != new_grad:
        return f"tensor '{name}' requires_grad mismatch. expected requires_grad={int(bool(grad))}"
    if len(shape) != len(new_shape):
        return f"tensor '{name}' rank mismatch. expected {len(shape)}, actual {len(new_shape)}"
    for i, (a, b) in enumerate(zip(shape, new_shape)):
        if a != b:
            return f"tensor '{name}' size mismatch at index {i}. expected {a}, actual {b}"
    return f"tensor '{name}' changed"


def retrace_reason(old: tuple, new: tuple) -> str:
    """Every part of `new` that an entry made for `old` does not fit, joined by "; "."""
    before = {part[0]: part for part in old}
    after = {part[0]: part for part in new}
    failures = [guard_failure(before[p[0]], p) for p in new if p[0] in before and before[p[0]] != p]
    failures += [f"{name} is new" for name in after if name not in before]
    failures += [f"{name} is gone" for name in before if name not in after]
    return "; ".join(failures)


# A first trace's own note, and a trace's graph title ("tf.function f(x: float32[3]) trace #2")
FIRST_CALL = Message("warning.first_call", "first call: traced")


def trace_title(label: str, spec: str, n: int) -> Message:
    return Message("title.trace", f"{label}{spec} trace #{n}", label=label, spec=spec, n=n)


FREQUENT = 5            # TensorFlow warns that a function keeps retracing from its 5th trace


class Specialisations:
    """The entries (graphs, runners, whatever a front-end keeps) one function made, by signature.

    `lookup(key)` finds the entry for a call (and notes it as the last call's), `add(key, entry)`
    keeps a new one, and `reason(key)`, asked before adding, says why the last call's entry does not
    fit: None for the first signature. `retraces` lists each retrace ({"reason", "signature"}), and
    `recorded()` whether the entry being made is still among the first `record_limit`, the ones
    the run record shows (later ones run without being shown: a function retraced in a loop would
    flood the page). The messages for the run record say `verb` ("retraced" as TensorFlow says it,
    "recompiled" as PyTorch does)."""

    def __init__(self, verb: str = "retraced", record_limit: int | None = None):
        self.entries: dict[Hashable, Any] = {}
        self.last: tuple | None = None           # the signature of the latest call
        self.retraces: list[dict] = []
        self.verb = verb
        self.record_limit = record_limit

    def __len__(self) -> int:
        return len(self.entries)

    def __contains__(self, key) -> bool:
        return key in self.entries

    def lookup(self, key):
        entry = self.entries.get(key)
        if entry is not None:
            self.last = key
        return entry

    def reason(self, key) -> str | None:
        if not self.entries:
            return None
        old = self.last if self.last is not None else next(reversed(self.entries))
        return retrace_reason(old, key)

    def retraced(self, key, reason: str | None) -> None:
        """Note a retrace (a new signature after the first): `retraces` lists it."""
        if reason is not None:
            self.retraces.append({"reason": reason, "signature": [describe(p) for p in key if p[1] != GLOBAL]})

    def recorded(self) -> bool:
        """Whether the entry being made now is among the first `record_limit` (the ones recorded)."""
        return self.record_limit is None or len(self.entries) < self.record_limit

    def add(self, key, entry) -> None:
        self.entries[key] = entry
        self.last = key

    def newest(self):
        """The entry added last (the graph a front-end shows when asked for `.graph`)."""
        return next(reversed(self.entries.values())) if self.entries else None

    # ---- the run record's words for a retrace --------------------------------------------------
    def note(self, reason: str) -> Message:
        """The retraced graph's own warning: `retraced: tensor 'x' size mismatch ...` (the reason
        is quoted as the library words it)."""
        return Message(f"warning.{self.verb}", f"{self.verb}: {reason}", quote=reason)

    def warning(self, label: str, reason: str) -> Message:
        """The run's warning: `tf.function f retraced: tensor 'x' size mismatch ...`."""
        return Message(f"warning.{self.verb}_run", f"{label} {self.verb}: {reason}", label=label, quote=reason)

    def frequent(self, label: str) -> Message | None:
        """The run's warning when the trace being made (before `add`) is the FREQUENT-th."""
        if len(self.entries) + 1 != FREQUENT:
            return None
        return Message(f"warning.frequent_{self.verb}",
                       f"{FREQUENT} traces of {label}: every new shape or Python value {self.verb.removesuffix('d')}s; "
                       "pass tensors rather than Python numbers, or give an input_signature", n=FREQUENT, label=label)
