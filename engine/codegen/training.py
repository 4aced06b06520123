"""Compiled forward and backward, joined to eager autograd (what torch.compile does for training).

From a captured forward graph, graph autodiff (engine.autodiff.backward_graph) gives the backward
graph and the forward values it reads ("saved"); AutogradRunner joins the two to eager autograd.
CompiledAutograd compiles both (kernels + BLAS, one C module for the pair), the forward with the
saved values as extra outputs, the backward for the layouts they will have; InterpretedAutograd
runs them on the reference interpreter. `make_runner` is the seam torch.compile calls.
"""
from __future__ import annotations

import gc

import numpy as np

from engine import autograd
from engine.autodiff import backward_graph, differentiable_value
from engine.autograd_function import Function, FunctionCtx, attach_custom_node
from engine.codegen.executor import CompiledGraph, build, compile_together
from engine.errors import UnsupportedError
from engine.ir import interpreter
from engine.ir.graph import Graph
from engine.ir.verify import verify
from engine.passes import PipelineResult, run_pipeline
from engine.tensor import Tensor


class AutogradRunner:
    """A graph's forward and backward joined to eager autograd, as torch.compile's AOTAutograd does.

    The forward runs with the values its backward graph reads ("saved") as extra outputs; its one
    differentiable output gets a grad_fn (`CompiledFunctionBackward`, PyTorch's name) whose
    backward runs the backward graph on them, so `loss.backward()` and `opt.step()` work unchanged
    and parameters' `.grad` are filled by ordinary AccumulateGrad nodes. Subclasses run the two
    graphs: `run_forward(arrays)` (outputs, then saved values) and `run_backward(seeds, saved)`
    (gradients in `wrt` order), on numpy arrays."""

    backend: str | None = None
    has_backward = False

    def split(self, graph: Graph, wrt: list[str] | None):
        """(the forward graph with the saved values as extra outputs, the backward graph or None),
        and what calls need: which inputs get gradients, where each saved value comes from."""
        self.graph = graph
        self.num_outputs = len(graph.outputs)
        ids = [n.id for n in graph.placeholders]
        self.wrt = wrt if wrt is not None else [v.id for v in graph.inputs if differentiable_value(v)]
        self.wrt_positions = [ids.index(w) for w in self.wrt]
        self.seed_specs = [(tuple(v.shape), np.dtype(v.dtype)) for v in graph.outputs]
        self.float_outputs = [i for i, v in enumerate(graph.outputs) if differentiable_value(v)]
        self.saved_plan: list[tuple[str, int]] = []
        self.has_backward = bool(self.wrt)
        self.differentiated = None            # the engine.autodiff.Backward (the record shows this one)
        if not self.wrt:
            return graph, None
        bwd = self.differentiated = backward_graph(graph, self.wrt)
        forward = graph.copy()
        values = forward.values()
        computed = [s for s in bwd.saved if s not in ids]
        forward.output(list(forward.outputs) + [values[s] for s in computed])
        # each saved value: a graph input (placeholder index) or an extra forward output
        self.saved_plan = [("input", ids.index(s)) if s in ids else ("output", self.num_outputs + computed.index(s))
                           for s in bwd.saved]
        return forward, bwd.graph

    def run_forward(self, arrays: list) -> list:
        raise NotImplementedError

    def run_backward(self, seeds: list, saved: list) -> list:
        raise NotImplementedError

    def __call__(self, *tensors):
        needs = tuple(isinstance(t, Tensor) and t.requires_grad for t in tensors)
        needs_grad = self.has_backward and autograd.is_grad_enabled() and any(needs[p] for p in self.wrt_positions)
        if needs_grad and len(self.float_outputs) != 1:
            raise UnsupportedError("compiled training supports one differentiable output "
                                   f"(this graph returns {len(self.float_outputs)})")
        arrays = [t.array if isinstance(t, Tensor) else np.asarray(t) for t in tensors]
        outs = self.run_forward(arrays)
        results = [Tensor(o) for o in outs[: self.num_outputs]]
        if needs_grad:
            # the node is made directly (Function.apply's generic checks cost more than the
            # rest of this call): same node, same backward protocol
            ctx = FunctionCtx(needs)
            ctx.runner = self
            ctx.saved_arrays = [arrays[i] if kind == "input" else outs[i] for kind, i in self.saved_plan]
            del outs
            attach_custom_node(RunnerFunction, ctx, tensors, results[self.float_outputs[0]])
        return results

    def gradients(self, ctx, grad) -> tuple:
        """The backward of one call: a gradient (an array, or None) per input of the call."""
        seeds = [np.zeros(shape, dtype) for shape, dtype in self.seed_specs]
        d = self.float_outputs[0]
        g = np.asarray(getattr(grad, "array", grad), dtype=seeds[d].dtype)
        # a broadcast gradient is materialized: a compiled backward is specialized for contiguous seeds
        seeds[d] = g if g.shape == seeds[d].shape else np.ascontiguousarray(np.broadcast_to(g, seeds[d].shape))
        grads = self.run_backward(seeds, ctx.saved_arrays)
        # arrays, not Tensors: the node takes them as they are, so an unshared gradient becomes
        # .grad without a copy
        by_position = dict(zip(self.wrt_positions, grads))
        del grads
        return tuple(by_position.pop(p, None) for p in range(len(ctx.needs_input_grad)))


class RunnerFunction(Function):
    """The autograd.Function every runner's node names; its backward asks the runner that made
    the node. Named as PyTorch names it (the node shows as `CompiledFunctionBackward`); the
    Python name differs from CompiledFunction below, what torch.compile(fn) returns."""

    @staticmethod
    def forward(ctx, *tensors):
        raise RuntimeError("the forward runs in AutogradRunner.__call__")

    @staticmethod
    def backward(ctx, grad):
        return ctx.runner.gradients(ctx, grad)


RunnerFunction.__name__ = RunnerFunction.__qualname__ = "CompiledFunction"


class InterpretedAutograd(AutogradRunner):
    """The interpreter backend: both graphs run on the reference interpreter."""

    backend = "interpreter"
    pipeline = None                           # no passes: the graphs run as captured

    def __init__(self, graph: Graph, wrt: list[str] | None = None):
        self.forward, self.backward = self.split(graph, wrt)
        self.kernels: list = []

    def run_forward(self, arrays: list) -> list:
        return interpreter.run(self.forward, arrays)

    def run_backward(self, seeds: list, saved: list) -> list:
        return interpreter.run(self.backward, seeds + saved)






def _optimize(graph: Graph, keep_steps: bool = False) -> PipelineResult:
    """The pass pipeline for compiling: the verifier on what goes in and what comes out rather than
    after every pass (the tests verify pass by pass; here it is latency); `keep_steps` keeps each
    pass's graph, for the run record's pass snapshots."""
    verify(graph)
    result = run_pipeline(graph, check=False, keep_steps=keep_steps)
    verify(result.graph)
    return result


class CompiledAutograd(AutogradRunner):
    """Callable on Tensors in the graph's placeholder order; returns Tensors (a list). `pipeline` is
    the pass pipeline's run on the forward graph it compiled (with each pass's step when
    `keep_steps`: what the run record's Passes tab shows)."""

    def __init__(self, graph: Graph, wrt: list[str] | None = None, backend: str | None = None,
                 keep_steps: bool = False):
        # Compiling allocates many short-lived objects and makes no garbage cycles worth chasing:
        # with the cyclic GC paused, a collection of a large heap (a process that imported real
        # PyTorch holds ~170,000 objects) cannot land in the middle of it (seen: 130 ms spikes).
        collecting = gc.isenabled()
        gc.disable()
        try:
            self._compile(graph, wrt, backend, keep_steps)
        finally:
            if collecting:
                gc.enable()

    def _compile(self, graph: Graph, wrt: list[str] | None, backend: str | None, keep_steps: bool) -> None:
        forward, backward = self.split(graph, wrt)
        self.backward = None
        # forward and backward kernels are compiled together, as one C module
        self.pipeline = _optimize(forward, keep_steps)
        self.forward = build(self.pipeline.graph, backend, defer=True)
        if backward is not None:
            # the backward is compiled for the layouts the saved values will have: a saved W.T
            # is a transposed view of the parameter, compiled for as such rather than copied
            spec = self.forward.current
            backward_graph_opt = _optimize(backward).graph
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


def make_runner(graph: Graph, wrt: list[str], keep_steps: bool = False):
    """The backend seam: generated kernels, or the interpreter if code generation fails for this
    graph (and a note saying so, for the record). `keep_steps`: keep the pipeline's steps (recorded)."""
    try:
        return CompiledAutograd(graph, wrt, keep_steps=keep_steps), None
    except Exception as exc:  # noqa: BLE001 - fall back, and say so in the record
        return InterpretedAutograd(graph, wrt), f"code generation failed ({type(exc).__name__}: {exc}); ran on the interpreter"
