"""`engine.function` (what `tf.function` builds on): a Python function becomes a graph per input
signature — tensor shapes and dtypes, and the values of Python arguments — cached, and traced
again (a retrace, recorded with its reason) when a call brings a new signature.

As TensorFlow's autograph, Python `if`/`while` on tensors become `cond`/`while_loop` nodes (the
scripting compiler does the conversion); Python side effects such as `print` run only while
tracing, once per signature, and show symbolic tensors — the pitfall the seed warns about.
"""
from __future__ import annotations

import functools
import inspect

from engine.capture import trail
from engine.capture.ast_compiler import ScriptError, is_tensor
from engine.capture.common import arguments, frozen_random_masks, gather_inputs, pack_outputs
from engine.capture.scripting import compile_graph
from engine.capture.specialisation import Specialisations, signature
from engine.capture.tracing import trace_values

MAX_RECORDED_TRACES = 4


def _describe(x) -> str:
    if is_tensor(x):
        return f"{x.array.dtype}{list(x.array.shape)}"
    return repr(x)


class GraphFunction:
    """A function captured per signature; call it like the original."""

    def __init__(self, fn, autograph: bool = True, name: str | None = None):
        self.python_function = fn
        self.autograph = autograph
        self.__name__ = name or getattr(fn, "__name__", "function")
        self.__doc__ = getattr(fn, "__doc__", None)
        self._params = list(inspect.signature(fn).parameters.values())
        self._names = [p.name for p in self._params]
        self._cache = Specialisations(record_limit=MAX_RECORDED_TRACES)
        self._sites: dict = {}             # signature -> the call site the recorder gave for its graph

    @property
    def retraces(self) -> list[dict]:
        """[{"reason": ..., "signature": [...]}], one per retrace."""
        return self._cache.retraces

    def _bind(self, args, kwargs) -> list:
        bound = inspect.Signature(self._params).bind(*args, **kwargs)
        bound.apply_defaults()
        return [bound.arguments[p.name] for p in self._params]

    def signature_of(self, values) -> tuple:
        return signature(self._names, values)

    def _trace(self, values, key):
        reason = self._cache.reason(key)
        graph = None
        capture_note = None
        if self.autograph:
            try:
                graph, structure, kinds = compile_graph(self.python_function, self.__name__, list(values),
                                                        bool_inputs=False, trace_time_print=True)
            except ScriptError as exc:
                if exc.construct:
                    capture_note = f"autograph could not convert {self.__name__} ({exc}); traced it instead"
                else:
                    raise
        if graph is None:
            graph, tracer, structure, kinds = trace_values(self.python_function, list(values), self.__name__)
            capture_note = capture_note or "traced (autograph off)"
            warnings, frozen = tracer.warnings, list(zip(tracer.frozen, tracer.frozen_arrays))
        else:
            warnings, frozen = [], []
        warnings = warnings + frozen_random_masks(graph)
        self._cache.retraced(key, reason)
        if reason is not None:
            if trail.recording():
                trail.warn(self._cache.warning(self.__name__, reason))
                frequent = self._cache.frequent(self.__name__)
                if frequent:
                    trail.warn(frequent)
        if self._cache.recorded():
            notes = [w for w in (capture_note, reason and self._cache.note(reason)) if w] + warnings
            self._sites[key] = trail.graph_captured(
                graph, "function", f"function {self.__name__} ({', '.join(_describe(v) for v in values)})",
                target=self.python_function, warnings=notes, frozen=frozen, inputs=gather_inputs(kinds, values),
                extra={"retrace": reason, "tracing_count": len(self._cache) + 1, "function": self.__name__})
        return graph, structure, kinds

    def get_concrete_function(self, *args, **kwargs):
        """The graph for this signature (traced now if new), as TensorFlow's ConcreteFunction."""
        values = self._bind(args, kwargs)
        key = self.signature_of(values)
        if self._cache.lookup(key) is None:
            self._cache.add(key, self._trace(values, key))
        return ConcreteFunction(self, key)

    def __call__(self, *args, **kwargs):
        values = self._bind(args, kwargs)
        key = self.signature_of(values)
        entry = self._cache.lookup(key)
        if entry is None:
            entry = self._trace(values, key)
            self._cache.add(key, entry)
        graph, structure, kinds = entry
        inputs = gather_inputs(kinds, values)
        outs = trail.run(self._sites.get(key), graph, inputs, arguments(kinds, inputs))
        return pack_outputs(outs, structure)

    def experimental_get_tracing_count(self) -> int:
        return len(self._cache)

    @property
    def graph(self):
        if self._cache.last is None:
            raise RuntimeError(f"{self.__name__} has not been traced yet: call it once")
        return self._cache.entries[self._cache.last][0]

    def __get__(self, obj, objtype=None):
        # a decorated method: bind `self` as a Python argument (part of the signature)
        if obj is None:
            return self
        return functools.partial(self, obj)

    def __repr__(self) -> str:
        return f"<engine.function {self.__name__}>"


class ConcreteFunction:
    def __init__(self, owner: GraphFunction, key):
        self._owner, self._key = owner, key

    @property
    def graph(self):
        return self._owner._cache.entries[self._key][0]

    def __call__(self, *args, **kwargs):
        return self._owner(*args, **kwargs)


def function(fn=None, *, input_signature=None, autograph: bool = True, jit_compile=None,
             reduce_retracing: bool = False, experimental_relax_shapes=None, name: str | None = None):
    """`@engine.function` / `@tf.function`. Shapes are always concrete here, so `input_signature`
    and shape relaxation are accepted but each new shape still gets its own graph."""
    if fn is None:
        return lambda f: function(f, autograph=autograph, name=name)
    return GraphFunction(fn, autograph=autograph, name=name)
