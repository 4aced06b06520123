"""Capture by scripting (`torch.jit.script`): compile the function's or module's source (its AST)
into the IR, so that `if`/`while` on tensors become `cond`/`while_loop` nodes instead of being
frozen as a trace freezes them.

The IR has concrete shapes, so a scripted function is specialized per input signature when
called (tensor shapes and dtypes, non-tensor argument values). At `script()` time, before any
call, it is compiled once with nominal shapes (shown as `f32[?]`) for `.graph`, `.code` and
`.save()`. A `bool` argument stays an input in every graph: `if use_bias:` becomes a `cond`, as
TorchScript keeps both branches of a bool argument.
"""
from __future__ import annotations

import inspect

import numpy as np

from engine import nn_context
from engine.capture import trail
from engine.capture.ast_compiler import Compiler, ScriptError, Scripted, is_tensor, parse_function, user_defined
from engine.capture.common import (arguments, changed_state, frozen_random_masks, gather_inputs, is_module,
                                   is_readonly_error, module_state, pack_outputs, snapshot_state)
from engine.capture.specialisation import Specialisations, signature, tensor_part, value_part
from engine.hooks import Message
from engine.compat.torch_class_names import TorchClassRepr
from engine.ir.graph import Graph, format_spec
from engine.ir.printer import format_graph
from engine.ops.registry import Spec
from engine.tensor import Tensor

_PY_DTYPES = {bool: np.bool_, int: np.int64, float: np.float32}


def _annotation_type(param):
    ann = param.annotation
    if isinstance(ann, str):
        ann = {"bool": bool, "int": int, "float": float}.get(ann, ann)
    return ann


def _structure(result) -> str:
    return "list" if isinstance(result, list) else "tuple" if isinstance(result, tuple) else "single"


def compile_graph(fn, name: str, args: list, module=None, generic: bool = False, bool_inputs: bool = True,
                  trace_time_print: bool = False):
    """Compile `fn` (a function, or a Module's forward when `module` is given) for these arguments.

    `args`: one entry per parameter (after self): a Tensor (its shape/dtype make the placeholder),
    a Python value (specialized), or a `type` (bool/int/float/"tensor"), which makes a placeholder
    with a nominal shape (generic compile). Returns (graph, output structure, input kinds), where
    input kinds lists, per placeholder in order, ("arg", index), ("state", dotted name) or
    ("lifted", tensor) (see engine.capture.common.gather_inputs)."""
    g = Graph(name)
    comp = Compiler(g)
    comp.trace_time_print = trace_time_print
    values, kinds = [], []
    names = [p.name for p in inspect.signature(fn).parameters.values()]
    if module is not None:
        names = names[1:]
    for i, (pname, a) in enumerate(zip(names, args)):
        if is_tensor(a):
            v = g.placeholder(pname, a.array.shape, a.array.dtype)
            values.append(comp.shadow(v))
            kinds.append(("arg", i))
        elif a == "tensor":
            v = g.placeholder(pname, (), np.float32)
            g.unknown_shapes.add(v.id)
            values.append(comp.shadow(v))
            kinds.append(("arg", i))
        elif (a in (bool, int, float) and generic) or (isinstance(a, bool) and bool_inputs):
            dtype = _PY_DTYPES[a if isinstance(a, type) else bool]
            v = g.placeholder(pname, (), dtype)
            values.append(comp.shadow(v))
            kinds.append(("arg", i))
        else:
            values.append(a)
    if module is not None:
        for sname, t in module_state(module):
            v = g.placeholder(sname, t.array.shape, t.array.dtype, role="param")
            comp.shadow(v, t)
            kinds.append(("state", sname))
    before = snapshot_state(module)
    with comp:
        if module is not None and not user_defined(fn):
            try:
                result = module(*values)        # a library module (nn.Sequential...): its ops are recorded
            except ValueError as exc:
                if not is_readonly_error(exc):
                    raise
                err = ScriptError(f"{type(module).__name__} writes into a captured tensor in place (e.g. "
                                  "BatchNorm running statistics in training mode); a graph cannot", None)
                err.mutates_state = True
                raise err from None
        elif module is not None:
            nn_context.push(getattr(module, "_qualname", "") or "")
            try:
                result = comp.call_function(fn, tuple(values), {}, self_obj=module)
            finally:
                nn_context.pop()
        else:
            result = comp.call_function(fn, tuple(values), {})
    mutated = changed_state(module, before, restore=True)
    if mutated:
        err = ScriptError(f"{', '.join(mutated)} changed in place while capturing (e.g. BatchNorm running "
                          "statistics in training mode); a captured graph cannot update module state", None)
        err.mutates_state = True
        raise err
    outs = result if isinstance(result, (tuple, list)) else [result]
    out_values = []
    for o in outs:
        if not is_tensor(o):
            if isinstance(o, (bool, int, float)):
                o = Tensor(np.asarray(o))
            else:
                raise ScriptError(f"{name} returns a {type(o).__name__}; a compiled function returns tensors", None)
        out_values.append(comp.value_of(o))
    g.current_line = g.current_module = None
    g.output(out_values)
    kinds += [("lifted", t) for t in comp.lifted]
    return g, _structure(result), kinds


class ScriptFunction(Scripted, metaclass=TorchClassRepr):
    """What `torch.jit.script(fn)` returns: callable, with `.graph`, `.code` and `.save(path)`."""

    capture = "script"

    def __init__(self, fn, module=None):
        self._fn = fn
        self._module = module
        self.__name__ = type(module).__name__ if module is not None else fn.__name__
        self.__doc__ = getattr(fn, "__doc__", None)
        self._params = list(inspect.signature(fn).parameters.values())[1 if module is not None else 0:]
        self._names = [p.name for p in self._params]
        self._cache = Specialisations()
        self._sites: dict = {}         # signature -> the call site the recorder gave for its graph
        self._generic = None
        self._generic_error = None
        parse_function(fn)             # fails now (with the reason) if the source cannot be read
        self._compile_generic()

    # ---- compiling ---------------------------------------------------------------------------------
    def _generic_args(self) -> list:
        out = []
        for p in self._params:
            ann = _annotation_type(p)
            if p.default is not inspect.Parameter.empty and ann not in (bool,):
                out.append(p.default)
            elif ann in (bool, int, float):
                out.append(ann)
            else:
                out.append("tensor")
        return out

    def _compile_generic(self) -> None:
        try:
            graph, structure, kinds = compile_graph(self._fn, self.__name__, self._generic_args(),
                                                    module=self._module, generic=True)
        except ScriptError as exc:
            if exc.construct:
                raise                  # an unsupported construct: fail now, as TorchScript does
            self._generic_error = str(exc)
            return
        except Exception as exc:  # noqa: BLE001 - shapes unknown until called; say so on .graph
            self._generic_error = f"{type(exc).__name__}: {exc}"
            return
        self._generic = (graph, structure, kinds)
        trail.graph_captured(graph, self.capture, Message("title.scripted", f"scripted {self.__name__}", name=self.__name__),
                             backward=False, called=False,
                             warnings=[Message("warning.shapes_unknown",
                                               "compiled before any call: tensor shapes are unknown (shown as [?])")])

    def _signature(self, args) -> tuple:
        guards = ()
        if self._module is not None:       # train/eval changes dropout and batch norm: another graph
            guards = (value_part("self.training", getattr(self._module, "training", None)),
                      *(tensor_part(n, t) for n, t in module_state(self._module)))
        return signature(self._names, args, bool_inputs=True, guards=guards)

    def _specialized(self, args):
        key = self._signature(args)
        hit = self._cache.lookup(key)
        if hit is None:
            hit = compile_graph(self._fn, self.__name__, list(args), module=self._module)
            frozen = frozen_random_masks(hit[0])
            if frozen:
                raise ScriptError(frozen[0] + "; Dagscope's IR has no random ops yet", None)
            self._cache.add(key, hit)
            self._sites[key] = trail.graph_captured(
                hit[0], self.capture, Message("title.scripted_for", f"scripted {self.__name__} ({_describe(args)})",
                                              name=self.__name__, spec=_describe(args)),
                target=self._module if self._module is not None else self._fn,
                inputs=self._inputs(hit[2], args), extra={"function": self.__name__})
        return hit, key

    def _inputs(self, kinds, args) -> list:
        return gather_inputs(kinds, args, self._module)

    def _bind(self, args, kwargs) -> list:
        sig = inspect.Signature(self._params)
        bound = sig.bind(*args, **kwargs)
        bound.apply_defaults()
        return [bound.arguments[p.name] for p in self._params]

    def __call__(self, *args, **kwargs):
        args = self._bind(args, kwargs)
        (graph, structure, kinds), key = self._specialized(args)
        inputs = self._inputs(kinds, args)
        outs = trail.run(self._sites.get(key), graph, inputs, arguments(kinds, inputs))
        return pack_outputs(outs, structure)

    # ---- what users inspect ----------------------------------------------------------------------------
    @property
    def graph(self) -> Graph:
        if self._generic is not None:
            return self._generic[0]
        if self._cache:
            return self._cache.newest()[0]
        raise RuntimeError(f"{self.__name__} could not be compiled without knowing its input shapes "
                           f"({self._generic_error}); call it once, then read .graph")

    @property
    def code(self) -> str:
        return format_graph(self.graph)

    def save(self, path) -> None:
        """Writes the IR text (Dagscope's stand-in for a TorchScript archive)."""
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.code)

    def __repr__(self) -> str:
        return f"<torch.jit.ScriptFunction object {self.__name__}>"


class ScriptModule(ScriptFunction):
    """`torch.jit.script(module)`: the module's forward compiled; parameters stay the module's."""

    def __init__(self, module):
        self.__dict__["_module"] = module
        super().__init__(type(module).forward, module=module)

    forward = ScriptFunction.__call__

    def __getattr__(self, name):
        module = self.__dict__.get("_module")
        if module is None:
            raise AttributeError(name)
        return getattr(module, name)

    def __repr__(self) -> str:
        return f"RecursiveScriptModule(original_name={self.__name__})"


def _describe(args) -> str:
    parts = []
    for a in args:
        if is_tensor(a):
            parts.append(format_spec(Spec(tuple(a.array.shape), a.array.dtype)))
        else:
            parts.append(repr(a))
    return ", ".join(parts)


def script(obj, *args, **kwargs):
    """`torch.jit.script(fn_or_module)`; scripting something already scripted returns it."""
    if isinstance(obj, ScriptFunction):
        return obj
    if is_module(obj):
        return ScriptModule(obj)
    if inspect.isfunction(obj) or inspect.ismethod(obj):
        return ScriptFunction(obj)
    raise ScriptError(f"torch.jit.script takes a function or an nn.Module, not a {type(obj).__name__}", None)
