"""Compiled forward and backward, joined to eager autograd (what torch.compile does for training).

From a captured forward graph, graph autodiff (engine.autodiff.backward_graph) gives the backward
graph and the forward values it reads ("saved"). The forward is compiled with those saved values
as extra outputs, the backward on its own; `CompiledAutograd(...)(*tensors)` runs the compiled
forward and gives its result a grad_fn (`CompiledFunctionBackward`, PyTorch's name) whose
backward runs the compiled backward. So `loss.backward()` and `opt.step()` work unchanged, and
parameters' `.grad` are filled by ordinary AccumulateGrad nodes.
"""
from __future__ import annotations

import gc

import numpy as np

from engine.autodiff import backward_graph, differentiable_value
from engine.codegen.executor import CompiledGraph, build, compile_together
from engine.errors import UnsupportedError
from engine.ir.graph import Graph


def _optimize(graph: Graph) -> Graph:
    """The pass pipeline for compiling: no snapshots, and the verifier on what goes in and what
    comes out rather than after every pass (the tests verify pass by pass; here it is latency)."""
    from engine.ir.verify import verify
    from engine.passes import run_pipeline
    verify(graph)
    optimized = run_pipeline(graph, check=False, snapshots=False).graph
    verify(optimized)
    return optimized


class CompiledAutograd:
    """Callable on Tensors in the graph's placeholder order; returns Tensors (a list)."""

    def __init__(self, graph: Graph, wrt: list[str] | None = None, backend: str | None = None):
        # Compiling allocates many short-lived objects and makes no garbage cycles worth chasing:
        # with the cyclic GC paused, a collection of a large heap (a process that imported real
        # PyTorch holds ~170,000 objects) cannot land in the middle of it (seen: 130 ms spikes).
        collecting = gc.isenabled()
        gc.disable()
        try:
            self._compile(graph, wrt, backend)
        finally:
            if collecting:
                gc.enable()

    def _compile(self, graph: Graph, wrt: list[str] | None, backend: str | None) -> None:
        self.graph = graph
        placeholder_ids = [n.id for n in graph.placeholders]
        self.wrt = wrt if wrt is not None else [v.id for v in graph.inputs if differentiable_value(v)]
        self.num_outputs = len(graph.outputs)
        self.backward = None
        forward = graph
        if self.wrt:
            bwd = backward_graph(graph, self.wrt)
            forward = graph.copy()
            fvalues = {v.id: v for n in forward.nodes for v in n.outputs}
            computed = [s for s in bwd.saved if s not in placeholder_ids]
            forward.output(list(forward.outputs) + [fvalues[s] for s in computed])
            # each saved value: a graph input (placeholder index) or an extra forward output
            self.saved_plan = [("input", placeholder_ids.index(s)) if s in placeholder_ids
                               else ("output", self.num_outputs + computed.index(s)) for s in bwd.saved]
            self.seed_specs = [(tuple(v.shape), np.dtype(v.dtype)) for v in graph.outputs]
        # forward and backward kernels are compiled together, as one C module
        self.forward = build(_optimize(forward), backend, defer=True)
        if self.wrt:
            # the backward is compiled for the layouts the saved values will have: a saved W.T
            # is a transposed view of the parameter, compiled for as such rather than copied
            spec = self.forward.current
            backward_graph_opt = _optimize(bwd.graph)
            holders = backward_graph_opt.placeholders[len(graph.outputs):]
            if [h.id for h in backward_graph_opt.placeholders] != [h.id for h in bwd.graph.placeholders]:
                holders = []               # unexpected: let the first call's layouts decide
            layouts = {}
            for holder, (kind, i) in zip(holders, self.saved_plan):
                layout = spec.output_layout(i) if kind == "output" else None
                if layout is not None:
                    layouts[holder.id] = layout
            # gradients are not recycled: unshared, they become .grad without a copy
            self.backward = build(backward_graph_opt, backend, lazy=not holders, input_layouts=layouts,
                                  recycle=False, defer=True)
        compile_together(self.compiled)
        self.wrt_positions = [placeholder_ids.index(w) for w in self.wrt]
        self._function = None

    @property
    def compiled(self) -> list[CompiledGraph]:
        return [c for c in (self.forward, self.backward) if c is not None]

    def __call__(self, *tensors):
        from engine import autograd
        from engine.tensor import Tensor
        needs_grad = autograd.is_grad_enabled() and self.backward is not None and any(
            isinstance(tensors[p], Tensor) and tensors[p].requires_grad for p in self.wrt_positions)
        if not needs_grad:
            arrays = [t.array if isinstance(t, Tensor) else np.asarray(t) for t in tensors]
            outs = self.forward(*arrays)[: self.num_outputs]
            return [Tensor(o) for o in outs]
        if self._function is None:
            float_outs = [i for i, v in enumerate(self.graph.outputs) if differentiable_value(v)]
            if len(float_outs) != 1:
                raise UnsupportedError("compiled training supports one differentiable output "
                                       f"(this graph returns {len(float_outs)})")
            self._function = _compiled_function(self, float_outs[0])
        return list(self._function.apply(*tensors))


def _compiled_function(runner: CompiledAutograd, diff_index: int):
    """The autograd.Function whose forward/backward run the compiled graphs (made once per runner)."""
    from engine.autograd_function import Function
    from engine.tensor import Tensor

    class CompiledFunction(Function):
        @staticmethod
        def forward(ctx, *tensors):
            arrays = [t.array if isinstance(t, Tensor) else np.asarray(t) for t in tensors]
            outs = runner.forward(*arrays)
            ctx.saved_arrays = [arrays[i] if kind == "input" else outs[i] for kind, i in runner.saved_plan]
            ctx.n_inputs = len(tensors)
            results = tuple(Tensor(o) for o in outs[: runner.num_outputs])
            for i, r in enumerate(results):
                if i != diff_index:
                    ctx.mark_non_differentiable(r)
            return results

        @staticmethod
        def backward(ctx, grad):
            seeds = [np.zeros(shape, dtype) for shape, dtype in runner.seed_specs]
            g = np.asarray(getattr(grad, "array", grad), dtype=seeds[diff_index].dtype)
            # a broadcast gradient is materialized: the backward is compiled for contiguous seeds
            seeds[diff_index] = g if g.shape == seeds[diff_index].shape else \
                np.ascontiguousarray(np.broadcast_to(g, seeds[diff_index].shape))
            grads = runner.backward(*seeds, *ctx.saved_arrays)
            # arrays, not Tensors: the node takes them as they are, so an unshared gradient
            # becomes .grad without a copy
            by_position = dict(zip(runner.wrt_positions, grads))
            del grads
            return tuple(by_position.pop(p, None) for p in range(ctx.n_inputs))

    return CompiledFunction
