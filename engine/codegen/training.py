"""Compiled forward and backward, joined to eager autograd (what torch.compile does for training).

From a captured forward graph, graph autodiff (engine.autodiff.backward_graph) gives the backward
graph and the forward values it reads ("saved"); engine.capture.compiler.AutogradRunner joins the
two to eager autograd. Here both are compiled (kernels + BLAS, one C module for the pair), the
forward with the saved values as extra outputs, the backward for the layouts they will have.
"""
from __future__ import annotations

import gc

from engine.capture.compiler import AutogradRunner
from engine.codegen.executor import CompiledGraph, build, compile_together
from engine.ir.graph import Graph


def _optimize(graph: Graph) -> Graph:
    """The pass pipeline for compiling: no snapshots, and the verifier on what goes in and what
    comes out rather than after every pass (the tests verify pass by pass; here it is latency)."""
    from engine.ir.verify import verify
    from engine.passes import run_pipeline
    verify(graph)
    optimized = run_pipeline(graph, check=False, keep_steps=False).graph
    verify(optimized)
    return optimized


class CompiledAutograd(AutogradRunner):
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
        forward, backward = self.split(graph, wrt)
        self.backward = None
        # forward and backward kernels are compiled together, as one C module
        self.forward = build(_optimize(forward), backend, defer=True)
        if backward is not None:
            # the backward is compiled for the layouts the saved values will have: a saved W.T
            # is a transposed view of the parameter, compiled for as such rather than copied
            spec = self.forward.current
            backward_graph_opt = _optimize(backward)
            holders = backward_graph_opt.placeholders[len(graph.outputs):]
            if [h.id for h in backward_graph_opt.placeholders] != [h.id for h in backward.placeholders]:
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

    @property
    def backend(self) -> str:
        return self.forward.backend

    @property
    def compiled(self) -> list[CompiledGraph]:
        return [c for c in (self.forward, self.backward) if c is not None]

    def run_forward(self, arrays: list) -> list:
        return self.forward(*arrays)

    def run_backward(self, seeds: list, saved: list) -> list:
        return self.backward(*seeds, *saved)
