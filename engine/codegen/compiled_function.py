"""`torch.compile(fn_or_module)` / `engine.compile`: capture (the AST compiler, specialized per input
signature as TorchDynamo specializes, engine/capture), then the graph compiled and run by a runner
(`make_runner(graph, wrt)`, engine/codegen/training.py: the pass pipeline and generated kernels, or
the reference interpreter if code generation fails for this graph). The runner's pipeline result
and backward are the ones the run record shows: a compile is optimized and differentiated once.

Code the compiler cannot capture (an unsupported construct) runs eagerly instead, as a graph
break does in PyTorch, and the run record says why: results are never wrong, only slower.
"""
from __future__ import annotations

import contextlib
import inspect
import io
import warnings

from engine import autograd
from engine.capture import trail
from engine.capture.ast_compiler import ScriptError, user_defined
from engine.capture.common import (arguments, changed_state, frozen_random_masks, gather_inputs, is_module,
                                   module_state, pack_outputs, snapshot_state)
from engine.capture.scripting import compile_graph
from engine.capture.specialisation import GLOBAL, Specialisations, signature, tensor_part, value_part
from engine.capture.tracing import trace_values
from engine.codegen.training import make_runner
from engine.errors import UnsupportedError
from engine.hooks import Message
from engine.ir.graph import Graph

MAX_RECORDED_SPECIALIZATIONS = 3
MAX_SPECIALIZATIONS = 8


class _KnownState:
    """A module whose parameters and buffers were just listed (module_state's (name, tensor)
    pairs), for gather_inputs, which would otherwise walk the module's tree again."""

    def __init__(self, state: list):
        self.state = state

    def named_parameters(self):
        return self.state

    def named_buffers(self):
        return ()


class _Entry:
    def __init__(self, graph, structure, kinds, runner):
        self.graph, self.structure, self.kinds, self.runner = graph, structure, kinds, runner
        self.calls = None                     # the call site the recorder gave for the graph
        # generated kernels do not say which branch a cond took: such a call's trail is replayed
        self.control_flow = trail.has_control_flow(graph)


class CompiledFunction:
    """What `torch.compile(fn)` returns; for a module, see CompiledModule."""

    def __init__(self, fn, module=None):
        self._fn = fn
        self._module = module
        self._target = type(module).forward if module is not None else fn
        self.__name__ = type(module).__name__ if module is not None else getattr(fn, "__name__", "compiled")
        self._params = list(inspect.signature(self._target).parameters.values())[1 if module is not None else 0:]
        self._signature = inspect.Signature(self._params)
        # a call with every argument given positionally needs no binding (the training loop's call)
        self._positional = all(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in self._params)
        self._names = [p.name for p in self._params]
        self._cache = Specialisations(verb="recompiled", record_limit=MAX_RECORDED_SPECIALIZATIONS)
        self.graph_breaks: list[str] = []
        self._too_many = False

    @property
    def retraces(self) -> list[dict]:
        return self._cache.retraces

    def _key(self, args, state=None) -> tuple:
        guards = [("grad_mode", GLOBAL, autograd.is_grad_enabled())]
        if self._module is not None:
            guards.append(value_part("self.training", getattr(self._module, "training", None)))
            guards += [tensor_part(n, t, requires_grad=True)
                       for n, t in (state if state is not None else module_state(self._module))]
        return signature(self._names, args, requires_grad=True, guards=tuple(guards))

    def __call__(self, *args, **kwargs):
        if self._positional and not kwargs and len(args) == len(self._params):
            values = list(args)
        else:
            bound = self._signature.bind(*args, **kwargs)
            bound.apply_defaults()
            values = [bound.arguments[p.name] for p in self._params]
        # the module's parameters and buffers, walked once per call: the guard key and the graph's
        # inputs both read them (the walk is most of a small model's call overhead)
        state = module_state(self._module) if self._module is not None else None
        key = self._key(values, state)
        entry = self._cache.lookup(key)
        if entry is None and len(self._cache) >= MAX_SPECIALIZATIONS:
            # like torch._dynamo's cache_size_limit: past it, recompiling costs more than it saves
            if not self._too_many:
                self._too_many = True
                self._graph_break(ScriptError(f"recompiled {MAX_SPECIALIZATIONS} times (a new input signature "
                                              "at almost every call); running eagerly from now on", None))
            return self._fn(*args, **kwargs)
        if entry is None:
            entry = self._capture(values, key)
            self._cache.add(key, entry)
        if entry is False:                       # graph break: run eagerly
            return self._fn(*args, **kwargs)
        inputs = self._inputs(entry, values, state)
        outputs = entry.runner(*inputs)
        if entry.calls is not None and entry.calls.active():
            entry.calls.add(arguments(entry.kinds, inputs), outputs,
                            replay=(entry.graph, inputs) if entry.control_flow else None)
        return pack_outputs(outputs, entry.structure)

    forward = __call__

    def _inputs(self, entry, values, state=None) -> list:
        return gather_inputs(entry.kinds, values, self._module if state is None else _KnownState(state))

    def _capture(self, values, key):
        reason = self._cache.reason(key)
        self._cache.retraced(key, reason)
        try:
            graph, structure, kinds = compile_graph(self._target, self.__name__, list(values), module=self._module,
                                                    bool_inputs=False)
        except ScriptError as exc:
            # no source, or library code the compiler cannot parse: a guarded trace instead (user
            # code with an unsupported construct breaks the graph: it may have side effects)
            library = not user_defined(self._target) and not exc.mutates_state
            traced = self._trace_capture(values) if exc.no_source or library else None
            if traced is not None:
                graph, structure, kinds = traced
            else:
                return self._graph_break(exc)
        frozen = frozen_random_masks(graph)
        if frozen:
            return self._graph_break(ScriptError(frozen[0], None))
        wrt = []
        if autograd.is_grad_enabled():
            for node, t in zip(graph.placeholders, gather_inputs(kinds, values, self._module)):
                if t.requires_grad and node.out.dtype.kind == "f":
                    wrt.append(node.id)
        try:
            recorded = trail.recording() and self._cache.recorded()
            runner, note = make_runner(graph, wrt, keep_steps=recorded)
        except UnsupportedError as exc:       # e.g. a gradient through a while_loop: eager is exact
            return self._graph_break(exc)
        entry = _Entry(graph, structure, kinds, runner)
        if recorded:
            # the record shows the pipeline run and the backward this runner compiled, not new ones
            warnings = [w for w in (note, reason and self._cache.note(reason)) if w]
            entry.calls = trail.graph_captured(
                graph, "compile", f"compiled {self.__name__}", target=self._fn, warnings=warnings,
                backward=bool(wrt), inputs=self._inputs(entry, values), runner=runner, eager=self._eager(values),
                pipeline=runner.pipeline, differentiated=runner.differentiated,
                extra={"retrace": reason, "backend": getattr(runner, "backend", None) or _backend_of(runner),
                       "function": self.__name__})
            if runner.pipeline is not None:
                runner.pipeline.steps = []     # the record has made its snapshots: the pass-by-pass graphs can go
        return entry

    def _trace_capture(self, values):
        """Without source, trace instead; a trace that read a tensor's value in Python may have frozen
        a branch, so then it is not used (the call runs eagerly): a compiled result is never wrong."""
        before = snapshot_state(self._module)
        try:
            graph, tracer, structure, kinds = trace_values(self._fn, list(values), self.__name__, module=self._module)
        except UnsupportedError:          # e.g. an in-place write into a traced tensor
            changed_state(self._module, before, restore=True)
            return None
        if changed_state(self._module, before, restore=True):    # this extra forward must leave no trace
            return None
        return None if tracer.frozen else (graph, structure, kinds)

    def _graph_break(self, exc) -> bool:
        msg = Message("warning.graph_break", f"torch.compile fell back to eager for {self.__name__} (graph break): {exc}",
                      name=self.__name__, quote=str(exc)[:900])
        self.graph_breaks.append(msg)
        trail.warn(msg)
        return False

    def _eager(self, values):
        """The user's own function run eagerly, for the record's timings (prints silenced, and captured
        functions it calls not recorded as the program's calls: it is only being timed)."""
        def eager():
            trail.capture_started()
            try:
                with autograd.no_grad(), _silenced():
                    self._fn(*values)
            finally:
                trail.capture_ended()
        return eager

    @property
    def graph(self) -> Graph:
        entry = self._cache.entries.get(self._cache.last)
        if not entry:
            raise RuntimeError(f"{self.__name__} has not been called yet (torch.compile captures at the first call)")
        return entry.graph

    def __repr__(self) -> str:
        return f"<compiled {self.__name__}>"


class CompiledModule(CompiledFunction):
    """`torch.compile(module)`: calling it runs the compiled forward; everything else is the module's
    (parameters, train/eval, state_dict), so an ordinary training loop works unchanged."""

    def __init__(self, module):
        self.__dict__["_orig_mod"] = module
        super().__init__(module, module=module)

    def __getattr__(self, name):
        mod = self.__dict__.get("_orig_mod")
        if mod is None:
            raise AttributeError(name)
        return getattr(mod, name)

    def __repr__(self) -> str:
        return f"OptimizedModule(\n  (_orig_mod): {self._orig_mod!r}\n)"


@contextlib.contextmanager
def _silenced():
    """The user's function run again only to be timed: what it prints or warns was shown when it ran
    for real, so stdout, stderr and warnings are dropped (warnings by swapping the hook that shows
    them: changing the filters would make Python forget which warnings it has shown)."""
    show = warnings.showwarning
    warnings.showwarning = lambda *args, **kwargs: None
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            yield
    finally:
        warnings.showwarning = show


def _backend_of(runner) -> str | None:
    fwd = getattr(runner, "forward", None)
    return getattr(fwd, "backend", None)


def compile(model=None, *, fullgraph: bool = False, dynamic=None, backend=None, mode=None, options=None,
            disable: bool = False):
    """`torch.compile(fn_or_module)`; also usable as `@torch.compile` or `@torch.compile(mode=...)`."""
    if model is None:
        return lambda m: compile(m, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode,
                                 options=options, disable=disable)
    if disable:
        return model
    if is_module(model):
        return CompiledModule(model)
    if callable(model):
        return CompiledFunction(model)
    raise TypeError(f"torch.compile takes a function or an nn.Module, not a {type(model).__name__}")
