"""`tf.cond` and `tf.while_loop`. In a TF1 graph they build control-flow ops (graph_control_flow.py).
Inside a tf.function trace, on a graph tensor, they become `cond` /
`while_loop` nodes whose branches and bodies are compiled into sub-graphs by the same AST compiler
(so a Python `if` inside a branch function is converted too). Outside, they run eagerly: one
branch is called, the loop runs in Python — as in TF2 eager execution."""
from __future__ import annotations

import functools
import inspect

import numpy as np

from engine.capture.ast_compiler import Compiler, _Ctx, _Frame, is_tensor, user_defined
from engine.compat.tensorflow import context
from engine.compat.tensorflow.eager import EagerTensor, as_eager
from engine.compat.tensorflow.function import _Tracing, tracing
from engine.compat.tensorflow.graph import GraphTensor
from engine.compat.tensorflow.graph_control_flow import graph_cond, graph_while_loop
from engine.compat.tensorflow.nest import flatten, pack_like
from engine.errors import UnsupportedError
from engine.ir.graph import format_spec

def _symbolic_pred(pred, tr: _Tracing | None):
    return tr is not None and is_tensor(pred) and tr.is_symbolic(pred)


def cond(pred, true_fn=None, false_fn=None, name=None):
    """`tf.cond`: inside a tf.function on a graph tensor, a `cond` node with both branches captured."""
    if true_fn is None or false_fn is None:
        raise TypeError("tf.cond requires both true_fn and false_fn")
    if isinstance(pred, GraphTensor) or (context.building_graph() and tracing() is None):
        return graph_cond(pred, true_fn, false_fn, name)
    if hasattr(pred, "_dagscope_value"):
        pred = pred._dagscope_value()
    tr = tracing()
    if not _symbolic_pred(pred, tr):
        return true_fn() if bool(pred) else false_fn()
    comp = tr.compiler
    return _frame(comp).c_cond(pred, [lambda: _call(comp, true_fn, ()), lambda: _call(comp, false_fn, ())], None)


def _frame(comp: Compiler) -> _Frame:
    """A compiler frame to build control flow with (its function only lends globals to error messages)."""
    return _Frame(comp, _frame, 0, {})


def _call(comp: Compiler, fn, args: tuple):
    """A branch or loop function, compiled (its own `if`s converted) when it is the user's code."""
    if isinstance(fn, functools.partial) and inspect.isfunction(fn.func) and user_defined(fn.func):
        return comp.call_function(fn.func, tuple(fn.args) + args, dict(fn.keywords))
    if inspect.isfunction(fn) and user_defined(fn):
        return comp.call_function(fn, args, {})
    return fn(*args)


def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10, back_prop=True,
               swap_memory=False, maximum_iterations=None, name=None):
    """`tf.while_loop`: inside a tf.function, a `while_loop` node when the condition is a graph tensor."""
    if maximum_iterations is not None:
        raise UnsupportedError("tf.while_loop(maximum_iterations=...) is not supported by Dagscope; put the "
                               "bound into the condition")
    if any(isinstance(v, GraphTensor) for v in flatten(loop_vars)) or (context.building_graph() and
                                                                        tracing() is None):
        return graph_while_loop(cond, body, loop_vars, name)
    flat = [v._dagscope_value() if hasattr(v, "_dagscope_value") else v for v in flatten(loop_vars)]
    tr = tracing()
    symbolic = tr is not None and any(is_tensor(v) and tr.is_symbolic(v) for v in flat)
    if not symbolic:
        state = pack_like(loop_vars, flat)
        while True:
            test = cond(*_as_args(state))
            if tr is not None and _symbolic_pred(test, tr):
                return _graph_while(tr, cond, body, loop_vars, flatten(state))
            if not bool(test):
                return state
            state = _pack_result(loop_vars, body(*_as_args(state)))
    return _graph_while(tr, cond, body, loop_vars, flat)


def _as_args(state) -> tuple:
    return tuple(state) if isinstance(state, (list, tuple)) else (state,)


def _pack_result(loop_vars, result):
    if isinstance(loop_vars, (list, tuple)) and not isinstance(result, (list, tuple)):
        result = [result]
    return pack_like(loop_vars, flatten(result))


def _graph_while(tr: _Tracing, cond, body, loop_vars, flat: list):
    """A while_loop node: cond and body compiled into sub-graphs over the loop variables."""
    comp = tr.compiler
    init = []
    for v in flat:
        if not is_tensor(v):
            v = EagerTensor(np.asarray(v, np.float32 if isinstance(v, float) else np.int32))
        init.append(comp.value_of(v))
    subgraphs, results = [], []
    for kind in ("cond", "body"):
        ctx = _Ctx(comp.ctx.graph.subgraph(kind), comp.ctx)
        subgraphs.append(ctx)
        prev, comp.ctx = comp.ctx, ctx
        try:
            carried = []
            for i, v in enumerate(init):
                p = ctx.graph.placeholder(f"loop_var_{i}", v.shape, v.dtype)
                comp.home[p.id] = ctx.graph
                carried.append(as_eager(comp.shadow(p)))
            args = _as_args(pack_like(loop_vars, carried))
            if kind == "cond":
                test = _call(comp, cond, args)
                if not is_tensor(test):
                    test = EagerTensor(np.asarray(bool(test)))
                results.append([comp.value_of(test)])
            else:
                out = flatten(_pack_result(loop_vars, _call(comp, body, args)))
                values = []
                for i, (o, v0) in enumerate(zip(out, init)):
                    o = o if is_tensor(o) else EagerTensor(np.asarray(o, dtype=v0.dtype))
                    val = comp.value_of(o)
                    if val.shape != v0.shape or val.dtype != v0.dtype:
                        raise UnsupportedError(f"tf.while_loop: loop variable {i} enters as "
                                               f"{format_spec(v0.spec)} and leaves the body as "
                                               f"{format_spec(val.spec)}; it must keep its shape and dtype")
                    values.append(val)
                results.append(values)
        finally:
            comp.ctx = prev
    extra = _frame(comp)._unify_captures(subgraphs, leading=len(init))
    cond_ctx, body_ctx = subgraphs
    cond_ctx.graph.output(results[0])
    passthrough = [body_ctx.graph.placeholders[len(init) + i].out for i in range(len(extra))]
    body_ctx.graph.output(results[1] + passthrough)
    g = comp.ctx.graph
    g.current_line = comp.line
    outs = g.while_loop(cond_ctx.graph, body_ctx.graph, init + extra)
    shadows = [as_eager(comp.shadow(v)) for v in outs[:len(init)]]
    return pack_like(loop_vars, shadows) if isinstance(loop_vars, (list, tuple, dict)) else shadows[0]
