"""The executor: runs a graph's fusion plan as compiled kernels and extern calls, over buffers
preallocated once per input signature and reused by every call.

    compiled = build(graph)              # graph after the pass pipeline (fusion_groups, memory_plan)
    outs = compiled(x, w)                # numpy arrays in, fresh numpy arrays out

Elementwise and reduction groups become generated kernels (C, or numpy when no compiler exists);
matmul/addmm call BLAS through numpy with `out=` into the planned buffer (or straight into the
array of the epilogue value that replaces the product, units.py) and their epilogue (with an
addmm's bias) runs as one kernel; a classifier loss's nll_loss/gather_backward
have hand-lowered kernels (library_kernels.py); conv2d (one BLAS call over im2col columns in a
planned scratch), cat and stack also write into their planned buffers; movement ops are numpy
views; control flow and other library ops run the registry's forward, a fresh array each call
(the memory plan gives those a buffer of their own). Each specialization's schedule runs as one
generated Python function (straight_line.py), which drops every array after its last reader. A call whose input shapes/dtypes differ from the
specialization's builds (or reuses) another specialization and records why, as a retrace.
"""
from __future__ import annotations

import subprocess
import sys
import time

import numpy as np

from engine.codegen import buffers, cc
from engine.codegen.c_render import render_for_display
from engine.codegen.kernel import NotLowerable, contiguous_strides, lower, view_strides
from engine.codegen.library_kernels import LIBRARY_OPS, lower_library
from engine.codegen.loader import load_kernels
from engine.codegen.numpy_render import render_group
from engine.codegen.straight_line import generate
from engine.ir.units import Unit, in_place_products, node_unit, plan_units
from engine.ir.graph import CALL, COND, CONSTANT, WHILE, Graph, Node
from engine.ops.registry import OPS, Spec
from engine.passes.memory_planning import conv_scratch

MAX_SPECIALIZATIONS = 8  # input signatures kept compiled per graph (a loop over ever-new shapes stays bounded)
OUTPUT_POOL = 2          # recycled arrays per graph output (a loop holds one result while computing the next)


def choose_backend(backend: str | None = None) -> str:
    """"c" when a compiler (or a compiler service) is available, else "numpy"."""
    if backend in ("c", "numpy"):
        return backend
    return "c" if cc.have_compiler() else "numpy"


class Specialization:
    """The graph compiled for one input signature: buffers, kernels, and the generated run function."""

    def __init__(self, graph: Graph, backend: str, input_layouts: dict | None = None, recycle: bool = True,
                 defer: bool = False):
        t0 = time.perf_counter()
        self.recycle = recycle
        self.graph = graph
        self.backend = backend
        self.input_layouts = input_layouts or {}         # placeholder id -> element strides
        self.nodes_by_id = {n.id: n for n in graph.nodes}
        self.users = graph.users()
        self.placeholders = [n.id for n in graph.placeholders]
        self.signature = tuple((tuple(n.out.shape), np.dtype(n.out.dtype), self.input_layouts.get(n.id))
                               for n in graph.placeholders)
        self.output_ids = [v.id for v in graph.outputs]
        # the signature with each input's expected byte strides, which the usual call compares first
        self.guard = tuple((shape, dtype, layout,
                            tuple(st * dtype.itemsize for st in layout or contiguous_strides(shape)))
                           for shape, dtype, layout in self.signature)
        self.kernels: list[dict] = []
        self.fallback_reason: str | None = None
        self.compile_ms = 0.0
        self.cache_hit = True
        self.pending: list[Unit] = []                    # lowered kernels awaiting the C compiler
        self._run = None                                 # the generated run function (straight_line.py)
        self.run_source = ""
        units = plan_units(graph, self.nodes_by_id)
        units = self._compile(units)
        self.units = units
        self._allocate(units)
        self._pool: dict[str, list[np.ndarray]] = {}
        self.build_ms = (time.perf_counter() - t0) * 1000
        if not defer:            # deferred: compile_together() builds several graphs' kernels at once
            self.finish()

    def finish(self, module=None) -> None:
        """Load the compiled kernels (compiling them unless `module` already holds them), then
        generate the run function (straight_line.py). A failed compile falls back to the numpy
        backend and says why."""
        t0 = time.perf_counter()
        if self.pending and module is None:
            try:
                module = load_kernels([u.kernel for u in self.pending])
            except (cc.CompileError, OSError, subprocess.SubprocessError) as exc:
                self.fall_back(exc)
                return
        if self.pending:
            self.compile_ms, self.cache_hit, self.module = module.compile_ms, module.cache_hit, module
            share = module.compile_ms / len(self.pending)
            for u in self.pending:
                u.function = module.functions[u.name]
                self.kernels.append({"name": u.name, "language": "c", "source": render_for_display(u.kernel),
                                     "nodes": list(u.node_ids), "compile_ms": round(share, 3),
                                     "cache_hit": module.cache_hit})
        self._run, self.run_source = generate(self)
        self.build_ms += (time.perf_counter() - t0) * 1000

    def fall_back(self, exc: Exception) -> None:
        """Become the numpy-backend specialization of the same graph (e.g. the sandbox's compile
        service refused the description), remembering why."""
        numpy_spec = Specialization(self.graph, "numpy", self.input_layouts, self.recycle)
        self.__dict__.update(numpy_spec.__dict__)
        self.fallback_reason = f"C compilation failed ({type(exc).__name__}: {exc}); ran the numpy backend"

    # ---- compilation ---------------------------------------------------------------------------
    def _layouts(self, units: list[Unit]) -> dict[str, tuple]:
        """Element strides each value will have at run time: contiguous unless it is a view."""
        layout: dict[str, tuple] = {}
        for n in self.graph.nodes:
            for v in n.outputs:
                layout[v.id] = self.input_layouts.get(v.id) or contiguous_strides(v.shape)
        for u in units:
            if u.kind == "view":
                n = self.nodes_by_id[u.node_ids[0]]
                src = n.inputs[0]
                st = view_strides(n, tuple(src.shape), layout[src.id])
                layout[n.id] = st if st is not None else contiguous_strides(n.out.shape)
        return layout

    def _compile(self, units: list[Unit]) -> list[Unit]:
        self.layout = self._layouts(units)
        if self.backend == "c":
            return self._lower_c(units)
        return self._compile_numpy(units)

    def _compile_numpy(self, units: list[Unit]) -> list[Unit]:
        for u in units:
            if u.kind == "kernel":
                u.numpy = render_group(self.graph, u, self.nodes_by_id)
                self.kernels.append({"name": u.name, "language": "numpy", "source": u.numpy.source,
                                     "nodes": list(u.node_ids), "compile_ms": 0.0, "cache_hit": False})
        self.cache_hit = False
        return units

    def _lower_c(self, units: list[Unit]) -> list[Unit]:
        """Lower every kernel unit to a loop nest (compiled later, all in one C module)."""
        final: list[Unit] = []
        lowered = []
        layout = self.layout
        for u in units:
            if u.kind == "op" and self.nodes_by_id[u.node_ids[0]].op in LIBRARY_OPS:
                try:       # a loss's library op with a hand-lowered kernel (library_kernels.py)
                    node = self.nodes_by_id[u.node_ids[0]]
                    u.kernel = lower_library(u.name, node, {v.id: layout[v.id] for v in node.inputs})
                    u.kind = "kernel"
                    lowered.append(u)
                except NotLowerable:
                    pass           # it stays a library op
                final.append(u)
                continue
            if u.kind != "kernel":
                final.append(u)
                continue
            try:
                u.kernel = self._lower_with_bias(u, final[-1] if final else None)
                final.append(u)
                lowered.append(u)
            except NotLowerable:
                # the group is not one loop nest: run its nodes one by one instead
                for n in (self.nodes_by_id[i] for i in u.node_ids):
                    single = node_unit(n)
                    if single.kind == "kernel":
                        try:
                            single.kernel = lower(self.graph, single, {v: layout[v] for v in single.inputs},
                                                  self.nodes_by_id)
                            lowered.append(single)
                        except NotLowerable:
                            single.kind = "op"
                    final.append(single)
        self.pending = lowered
        return final

    def _lower_with_bias(self, u: Unit, before: Unit | None):
        """Lower kernel `u`; when it is the epilogue of the addmm just before it (its only reader),
        with the addmm's bias added inside its loop and the BLAS call left to write the product."""
        layout = self.layout
        node = self.nodes_by_id[before.node_ids[0]] if before is not None and before.kind == "matmul" else None
        if node is not None and node.op == "addmm" and not getattr(before, "transposed", False) and \
                self._matmul_dtypes_ok(node) and node.id in u.inputs and node.id not in self.output_ids and \
                all(user.id in u.node_ids for user in self.users.get(node.id, [])):
            bias_id = node.inputs[0].id
            u.bias_add = (node.id, bias_id, node)
            saved_inputs = list(u.inputs)
            u.inputs = list(dict.fromkeys(u.inputs + [bias_id]))
            try:
                kernel = lower(self.graph, u, {v: layout[v] for v in u.inputs}, self.nodes_by_id)
                before.bias_in_epilogue = True
                return kernel
            except NotLowerable:
                del u.bias_add
                u.inputs = saved_inputs
        return lower(self.graph, u, {v: layout[v] for v in u.inputs}, self.nodes_by_id)

    # ---- storage -------------------------------------------------------------------------------
    def _allocate(self, units: list[Unit]) -> None:
        """Preallocate what kernels, BLAS calls and the ops that write with `out=` (conv2d, cat,
        stack) produce, and a convolution's scratch, in the memory plan's buffers; views and other
        ops produce their own arrays."""
        defined_at, last_use, root, view_root = {}, {}, {}, {}
        specs = {}
        # a product BLAS writes into its epilogue value's array: no array of its own (units.py)
        self.in_place = in_place_products(units)
        for i, u in enumerate(units):
            node = self.nodes_by_id[u.node_ids[0]]
            u.writes_out = u.kind == "op" and _writes_out(node)
            u.scratch = conv_scratch(node) if u.writes_out and node.op == "conv2d" else None
            for sid, shape, dtype in u.scratch or ():
                specs[sid] = (tuple(shape), np.dtype(dtype))
                defined_at[sid] = last_use[sid] = i
            for v in u.outputs:
                if v in self.in_place:          # the value's array is written from this step on
                    defined_at[self.in_place[v]] = i
                    root[v] = [self.in_place[v]]
                    continue
                defined_at.setdefault(v, i)
                last_use.setdefault(v, i)
                # views (and ops that may return views) keep their sources' memory alive
                aliasing = u.kind == "view" or (u.kind == "op" and not u.writes_out)
                # (deduplicated: a long chain of such ops on two inputs, as threefry's rounds, would
                # otherwise double the list at every step)
                root[v] = list(dict.fromkeys(r for s in u.inputs for r in root.get(s, [s]))) if aliasing else [v]
                if u.kind == "view":
                    view_root[v] = view_root.get(u.inputs[0], u.inputs[0])
                if u.kind in ("kernel", "matmul") or u.writes_out:
                    val = self.nodes_by_id[v.split(".")[0]].out
                    specs[v] = (tuple(val.shape), np.dtype(val.dtype))
            for v in u.inputs:
                for r in root.get(v, [v]):
                    last_use[r] = max(last_use.get(r, i), i)
        end = len(units) + 1
        for v in self.output_ids:
            for r in root.get(v, [v]):
                last_use[r] = end
        # graph outputs, and the arrays returned views look into, are written straight into fresh
        # arrays each call (the caller keeps them), so returning them costs no copy; everything
        # else lives in preallocated buffers
        returned = dict.fromkeys(self.output_ids + [view_root[v] for v in self.output_ids if v in view_root])
        self.fresh = {v: specs.pop(v) for v in returned if v in specs}
        self.fresh_bytes = {v: buffers.nbytes(*spec) for v, spec in self.fresh.items()}
        plan = self.graph.memory_plan
        assignment = plan.assignment() if plan is not None else {}
        self.arrays, self.memory = buffers.allocate(specs, defined_at, last_use, assignment)
        # an output aliasing a reused buffer (through an op that may return a view) must be
        # copied out; views of inputs need not be
        self.copy_outputs = {v for v in self.output_ids if v not in self.fresh and
                             any(r in self.arrays for r in root.get(v, [v]))}
        # (np.ascontiguousarray makes a 0-d constant shape (1,): a 0-d output, or index_put's 0-d value, was 1-d)
        self.constants = {n.id: np.ascontiguousarray(n.value).reshape(n.value.shape) for n in self.graph.nodes
                          if n.kind == CONSTANT}

    # ---- running --------------------------------------------------------------------------------
    def _matmul_ok(self, node: Node, out_id: str) -> bool:
        out_id = self.in_place.get(out_id, out_id)
        return self._matmul_dtypes_ok(node) and (out_id in self.arrays or out_id in self.fresh)

    @staticmethod
    def _matmul_dtypes_ok(node: Node) -> bool:
        """Whether np.matmul with `out=` computes the node (one dtype throughout, no scalars)."""
        dts = {np.dtype(v.dtype) for v in node.inputs} | {np.dtype(node.out.dtype)}
        return len(dts) == 1 and all(len(v.shape) >= 1 for v in node.inputs[-2:])

    def output_array(self, vid: str, shape, dtype) -> tuple[np.ndarray, int]:
        """A fresh output array and its address, recycled from an earlier call once the caller has
        let go of it and of every view of it, as PyTorch's caching allocator does (a large new array
        costs page faults on every call). Entries: [array, its memory's owner, refcounts when only
        we held them, address]."""
        if not self.recycle:
            return buffers.aligned_array(shape, dtype, self.fresh_bytes[vid])
        pool = self._pool.setdefault(vid, [])
        for entry in pool:
            if sys.getrefcount(entry[0]) == entry[2] and sys.getrefcount(entry[1]) == entry[3]:
                return entry[0], entry[4]
        arr, at = buffers.aligned_array(shape, dtype, self.fresh_bytes[vid])
        if len(pool) >= OUTPUT_POOL:
            return arr, at
        pool.append([arr, arr.base, 0, 0, at])
        del arr
        entry = pool[-1]
        entry[2], entry[3] = sys.getrefcount(entry[0]), sys.getrefcount(entry[1])
        return entry[0], at

    def output_layout(self, index: int):
        """Element strides of output `index` as `run` returns it; None when C-contiguous."""
        vid = self.output_ids[index]
        if vid in self.fresh or vid in self.copy_outputs:
            return None
        node = self.nodes_by_id[vid.split(".")[0]]
        layout = self.layout.get(vid)
        return None if layout is None or layout == contiguous_strides(node.out.shape) else layout

    def run(self, arrays: list[np.ndarray]) -> list[np.ndarray]:
        if self._run is None:
            raise RuntimeError("this compiled graph's kernels were deferred: call compile_together() first")
        return self._run(*arrays)


def _writes_out(node: Node) -> bool:
    """Whether the executor runs `node` with `out=` into its planned buffer (np.concatenate,
    np.stack, a convolution's BLAS call over im2col columns) rather than the registry's forward."""
    if node.kind != CALL or len(node.outputs) != 1:
        return False
    return node.op in ("cat", "stack") or (node.op == "conv2d" and conv_scratch(node) is not None)


def layout_of(a: np.ndarray):
    """None for C-contiguous arrays, else element strides (the kernels compile them in)."""
    if a.flags.c_contiguous:
        return None
    if any(st % a.itemsize for st in a.strides):
        return "copy"
    return tuple(st // a.itemsize for st in a.strides)


class CompiledGraph:
    """A callable over numpy arrays, specialized per input signature: shapes, dtypes and memory
    layouts (a transposed view is compiled for as such rather than copied)."""

    def __init__(self, graph: Graph, backend: str | None = None, lazy: bool = False,
                 input_layouts: dict | None = None, recycle: bool = True, defer: bool = False):
        self.graph = graph
        self.recycle = recycle
        self.requested_backend = choose_backend(backend)
        self.retraces: list[dict] = []
        self.specializations: dict[tuple, Specialization] = {}
        self.n_inputs = len(graph.placeholders)
        self.current: Specialization | None = None
        if not lazy:              # lazy: compile at the first call, for the layouts that arrive
            first = Specialization(graph, self.requested_backend, input_layouts, recycle, defer)
            self.specializations[first.signature] = first
            self.current = first

    @property
    def backend(self) -> str:
        """The backend running: "numpy" also when compiling C failed (see fallback_reason)."""
        return self.current.backend if self.current else self.requested_backend

    # the run-record view of the latest specialization
    @property
    def kernels(self) -> list[dict]:
        return self.current.kernels if self.current else []

    @property
    def compile_ms(self) -> float:
        return self.current.compile_ms if self.current else 0.0

    @property
    def cache_hit(self) -> bool:
        return self.current.cache_hit if self.current else False

    @property
    def fallback_reason(self) -> str | None:
        return self.current.fallback_reason if self.current else None

    def __call__(self, *inputs) -> list[np.ndarray]:
        spec = self.current
        if spec is not None and len(inputs) == self.n_inputs and _fits(inputs, spec.guard):
            return spec.run(inputs)          # the usual call: same signature as the last one
        arrays = [a if type(a) is np.ndarray else np.asarray(getattr(a, "array", a)) for a in inputs]
        n_inputs = self.n_inputs
        if len(arrays) != n_inputs:
            raise TypeError(f"{self.graph.name} takes {n_inputs} inputs but {len(arrays)} were given")
        layouts = [layout_of(a) for a in arrays]
        if "copy" in layouts:
            arrays = [np.ascontiguousarray(a) if lay == "copy" else a for a, lay in zip(arrays, layouts)]
            layouts = [None if lay == "copy" else lay for lay in layouts]
        sig = tuple((a.shape, a.dtype, lay) for a, lay in zip(arrays, layouts))
        spec = self.current if self.current is not None and sig == self.current.signature \
            else self.specializations.get(sig)
        if spec is None:
            spec = self._specialize(sig)
        self.current = spec
        return spec.run(arrays)

    def _specialize(self, sig) -> Specialization:
        layouts = {n.id: lay for n, (_, _, lay) in zip(self.graph.placeholders, sig) if lay is not None}
        shapes = [(shape, dtype) for shape, dtype, _ in sig]
        base = tuple((tuple(n.out.shape), np.dtype(n.out.dtype)) for n in self.graph.placeholders)
        graph = self.graph if tuple(shapes) == base else respecialize_graph(self.graph, shapes)
        spec = Specialization(graph, self.backend, layouts, self.recycle)
        if self.current is not None:         # the first specialization is not a retrace
            old = self.current.signature
            changed = [f"input {i}: {_fmt(o)} -> {_fmt(n)}" for i, (o, n) in enumerate(zip(old, sig)) if o != n]
            self.retraces.append({"reason": "new input signature: " + "; ".join(changed),
                                  "signature": [_fmt(s) for s in sig], "compile_ms": spec.compile_ms,
                                  "cache_hit": spec.cache_hit})
        self.specializations[sig] = spec
        while len(self.specializations) > MAX_SPECIALIZATIONS:    # oldest first: dicts keep order
            del self.specializations[next(iter(self.specializations))]
        return spec


def _fits(inputs: tuple, guard: tuple) -> bool:
    """Whether numpy `inputs` have a specialization's signature (what __call__ would compute for
    them, cheaper): the byte strides compared first, the usual case in one tuple comparison."""
    for a, (shape, dtype, layout, strides) in zip(inputs, guard):
        if type(a) is not np.ndarray or a.shape != shape or a.dtype != dtype:
            return False
        if a.strides == strides:
            continue
        if layout is None:
            if not a.flags.c_contiguous:          # size-1 dims may have any stride
                return False
        elif layout_of(a) != layout:
            return False
    return True


def _fmt(sig) -> str:
    shape, dtype, layout = sig
    text = f"{np.dtype(dtype).name}[{', '.join(map(str, shape))}]"
    return text + (f" strides {list(layout)}" if layout is not None else "")


def respecialize_graph(graph: Graph, sig) -> Graph:
    """A copy of `graph` with new placeholder specs, every value's spec re-inferred by the registry.
    The fusion plan carries over (it names node ids); the memory plan does not (sizes changed)."""
    g = graph.copy()
    g.memory_plan = None
    for node, (shape, dtype) in zip(g.placeholders, sig):
        node.out.spec = Spec(tuple(shape), np.dtype(dtype))
    for node in g.nodes:
        if node.kind == CALL:
            spec = OPS[node.op].infer(*(v.spec for v in node.inputs), **node.attrs)
            node.out.spec = Spec(tuple(int(s) for s in spec.shape), np.dtype(spec.dtype))
        elif node.kind in (COND, WHILE):
            raise NotImplementedError("re-specializing control flow for new shapes: capture again")
    return g


def compile_together(graphs: list[CompiledGraph]) -> None:
    """Compile the deferred kernels of several graphs (a training step's forward and backward) as
    one C module: one compiler run, one compile-service request from the sandbox."""
    specs = [c.current for c in graphs if c.current is not None and c.current._run is None]
    pending = [u for s in specs for u in s.pending]
    if pending:
        used: set[str] = set()
        for u in pending:                          # C names must be unique across the graphs
            base, k = u.name, 1
            while u.name in used:
                u.name = u.kernel.name = f"{base}_{k}"
                k += 1
            used.add(u.name)
        t0 = time.perf_counter()
        try:
            module = load_kernels([u.kernel for u in pending])
        except (cc.CompileError, OSError, subprocess.SubprocessError) as exc:
            for s in specs:
                s.fall_back(exc)
            return
        first = next(s for s in specs if s.pending)
        first.build_ms += (time.perf_counter() - t0) * 1000    # (each finish() times itself)
        for s in specs:
            s.finish(module)
        for s in specs:                            # the one compiler run is reported once
            if s is not first:
                s.compile_ms = 0.0
    else:
        for s in specs:
            s.finish()


def build(graph: Graph, backend: str | None = None, lazy: bool = False,
          input_layouts: dict | None = None, recycle: bool = True, defer: bool = False) -> CompiledGraph:
    """Compile `graph` (normally after the pass pipeline) for its placeholders' shapes/dtypes,
    with contiguous inputs unless `input_layouts` (placeholder id -> element strides) says
    otherwise; `lazy=True` waits for the first call's inputs, layouts included. `recycle=False`
    returns outputs nothing else refers to, for a consumer that steals unshared arrays (autograd
    keeps an unshared gradient as .grad without copying it). `defer=True` leaves the C compile to
    compile_together()."""
    return CompiledGraph(graph, backend, lazy, input_layouts, recycle, defer)
