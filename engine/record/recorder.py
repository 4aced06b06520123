"""The recorder: turns what ran into the run record's graphs (docs/run-record.md is the contract).

Recording is bounded: the first `max_graphs` backward calls are recorded in full, later ones
are counted and only the last is kept (serialized when the run finishes), so a 10,000-step
training loop costs the same to record as a 4-step one.
"""
from __future__ import annotations

import contextlib
import gc
import sys
import weakref

import numpy as np

from engine import autograd, hooks
from engine.nn_context import _stack as _module_stack     # (the list itself, never rebound: note_where reads it)
from engine.record import dataflow, gradcheck
from engine.record.active import current
from engine.record.summaries import Summaries
from engine.record.trajectory import Trajectory
from engine.record.values import MAX_DATA_ELEMENTS, BlockStats, TensorMemo, ValueStore, Written, _raw_stats, dtype_name
from engine.tensor import Tensor
from engine.user_code import USER_FILENAME

MAX_STEPS = 4000
# A record's steps carry the gradients of at most this many tensors (grad_in and grad_out
# entries, over all its graphs, in the order they were recorded); later steps keep their node,
# rule and targets with `grad_in`/`grad_out` null, and their graph's warnings say so. An LSTMCell
# loop's four recorded walks of 2,254 steps had 22,544 of them, 26 MB of the record.
MAX_STEP_TENSORS = 6000
MAX_GRAPH_NODES = 5000         # a larger autograd graph is counted, not drawn

def note_where(node) -> None:
    """hooks.NODE_MADE: note on a new node the user's line and the module running
    (engine/native/fastops.c's `note_where` is the same in C). user_line() and
    current_module_path(), inlined: this runs once per op made in Python."""
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename == USER_FILENAME:
            node._line = frame.f_lineno
            break
        frame = frame.f_back
    else:
        node._line = None
    node._module = (_module_stack[-1] or None) if _module_stack else None


@contextlib.contextmanager
def backward_call(root, retain_graph: bool, call: str = ".backward()"):
    """Wraps one backward walk: the recorder, if any, captures its graphs and steps.
    `call` names what the user called, for the title: `loss.backward() #1`, `y: autograd.grad() #2`."""
    rec = current()
    if rec is None:
        yield
        return
    with rec.recording_backward(root, sys._getframe(), call):
        yield


@contextlib.contextmanager
def _gc_paused():
    """The recorder's snapshots and records are trees of dicts, lists and strings, garbage with no
    cycles: the cyclic GC's collections meanwhile only rescanned the run's whole autograd graph (a
    fifth of the CPU of an LSTMCell loop whose every backward call is snapshot). As engine/backward.py
    pauses it for the walk; the program's own code runs with the GC as it was."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


# ---- the recorder --------------------------------------------------------------------------------

class Recorder:
    def __init__(self, options: dict | None = None, values: ValueStore | None = None):
        options = options or {}
        self.values = values                  # where large tensors' values go, apart from the record
        self.max_graphs = max(1, int(options.get("max_graphs") or 3))
        self.gradcheck = bool(options.get("gradcheck", False))   # finite differences, on request
        self.graphs: list[dict] = []          # finished graphs, in order
        self.warnings: list[str] = []
        self.summaries = Summaries(self.warn)  # SummaryWriter's scalars and histograms, for the charts
        self.backward_calls = 0
        self.unheld_graph = None         # (module, or the read kind "item"..., tensor): the last model output
        # or value read that a graph made, drawn when no variable holds a graph
        self.dataflow = dataflow.Trail()      # ops on tensors without grad_fn, until the first backward
        self.dataflow_observer = self.dataflow.observe      # (subscribed by record/listen.py)
        self.plain_output = self.plain_read = None   # as unheld_graph, for results without a grad_fn
        self._pending_last = None             # the latest backward beyond max_graphs, serialized at finish
        self.finishers: list = []             # callables run first in finish() (captures summarize their calls)
        self.step_tensors_left = MAX_STEP_TENSORS   # the record's budget of step gradients (MAX_STEP_TENSORS)
        self.trajectory = Trajectory()        # the first graph's values over a training loop's iterations
        self._first_graph = None              # the record of the first backward call, which carries them
        # each recorded graph's leaves, weakly, with their version counters when recorded: a leaf
        # changed in place later (opt.step()) gets its value at the run's end (`value_after`)
        self._leaf_versions: list[tuple[dict, list]] = []
        self._ids = 0

    def new_graph_id(self) -> str:
        self._ids += 1
        return f"g{self._ids}"

    def add_graph(self, graph: dict) -> dict:
        """Static captures and other producers add finished graphs here."""
        graph.setdefault("id", self.new_graph_id())
        self.graphs.append(graph)
        return graph

    def warn(self, message: str) -> None:
        self.warnings.append(message)

    @contextlib.contextmanager
    def recording_backward(self, root, caller_frame, call: str = ".backward()"):
        self.stop_dataflow()
        self.backward_calls += 1
        n = self.backward_calls
        full = n <= self.max_graphs
        names = _TensorNames(caller_frame)
        builder = DynamicGraphBuilder(root, names, self.values, finished_later=not full)
        steps: list = []
        # a call written now: the trajectory's statistics of its values and gradients are the
        # record's (computed once per block of memory)
        stats = BlockStats() if full else _raw_stats
        with _gc_paused():
            builder.snapshot_forward()
            if full and not self.gradcheck:
                # its steps' gradients written as the walk makes them, and freed by it
                on_step = builder.step_writer(steps, self.step_tensors_left, stats)
            else:
                def on_step(node, grad, in_grads):
                    if len(steps) < MAX_STEPS:
                        steps.append((node, grad, in_grads))
        with hooks.subscribed(hooks.BACKWARD_STEP, on_step):
            yield
        builder.snapshot_grads(steps)
        if not full:                     # written at the run's end: the program goes on meanwhile
            steps = builder.kept_past_the_walk(steps)
        with _gc_paused():
            self.trajectory.observe(builder, root, steps, stats)
        if self.gradcheck and full and root.array.size == 1:
            builder.run_gradcheck(steps)
        title = f"{call} #{n}"                  # (after the root's name, once the names are matched: at finish)
        if full:
            with _gc_paused():
                graph = self.add_graph(self._finished(builder, title, steps, stats))
            if n == 1:
                self._first_graph = graph
            self._leaf_versions.append((graph, self._versions(builder)))
        else:
            self._pending_last = (builder, title, steps, self._versions(builder))

    def _finished(self, builder, title: str, steps: list, stats: BlockStats | None = None) -> dict:
        """builder's graph, its steps' gradients within what is left of the record's budget."""
        graph = builder.finish(builder.names.get(id(builder.root), "tensor") + title, steps, self.step_tensors_left, stats)
        self.step_tensors_left -= builder.step_tensors
        return graph

    def stop_following_ops(self) -> None:
        if self.dataflow_observer in hooks.OP_APPLIED:
            hooks.OP_APPLIED.remove(self.dataflow_observer)

    def stop_dataflow(self) -> None:
        """A backward ran (the run has an autograd graph to draw), or the data flow was drawn: ops need
        not be followed any more, nor their results kept."""
        self.stop_following_ops()
        self.dataflow.clear()
        self.plain_output = self.plain_read = None

    def finish(self, namespace: dict | None = None) -> list[dict]:
        """The run's graphs. A program that built a graph but never called backward() still
        shows it: the forward DAG and the backward DAG that backward() would walk."""
        for finisher in self.finishers:
            finisher()
        if self.backward_calls == 0 and namespace:
            roots = _graph_roots(namespace)[:2]
            if not roots and not self.graphs and self.unheld_graph is not None:
                # the graph lives only in an expression or a function (d2l's `net(X).shape`): the
                # model's last output that built one, named as the user's code names the model
                module, out = self.unheld_graph
                if isinstance(module, str):           # a value read: .item(), .tolist(), ...
                    roots = [(f"the tensor read by .{module}()", out)]
                else:
                    name = next((k for k, v in namespace.items() if v is module and not k.startswith("_")),
                                type(module).__name__)
                    roots = [(f"{name}(…)", out)]
            for name, t in roots:
                builder = DynamicGraphBuilder(t, {id(t): name}, self.values)
                builder.snapshot_forward()
                builder.snapshot_grads()
                self.add_graph(builder.finish(f"{name} (forward only: backward() not called)", []))
        if self.backward_calls == 0 and namespace and not self.graphs:
            self._draw_dataflow(namespace)
        if self._pending_last is not None:
            builder, title, steps, versions = self._pending_last
            with _gc_paused():
                graph = self._finished(builder, title, steps)
            graph["title"] += f" (last of {self.backward_calls}; {self.backward_calls - self.max_graphs - 1} not recorded)"
            self.add_graph(graph)
            self._leaf_versions.append((graph, versions))
            self._pending_last = None
        self._values_after()
        if self._first_graph is not None and not self._first_graph.get("too_large"):
            with _gc_paused():
                trajectory = self.trajectory.to_record(self.values, self.step_tensors_left)
            if trajectory is not None:
                self._first_graph["trajectory"], used = trajectory
                self.step_tensors_left -= used
        return self.graphs

    @staticmethod
    def _versions(builder) -> list:
        return [(fid, weakref.ref(t), t._version) for fid, t in builder.leaves]

    def _values_after(self) -> None:
        """A leaf of a recorded graph changed in place after it was recorded (its version counter
        moved: an optimizer's step, or the program's own in-place op) gets `value_after`, its value
        at the run's end, beside `value`, its value when the graph was recorded."""
        tensor_json = TensorMemo(self.values)
        for graph, leaves in self._leaf_versions:
            nodes = {n["id"]: n for n in graph.get("forward", {}).get("nodes", [])}
            for fid, ref, version in leaves:
                t = ref()
                if t is not None and t._version != version and fid in nodes:
                    nodes[fid]["value_after"] = tensor_json(t.array)
        tensor_json.flush()
        self._leaf_versions = []

    def _draw_dataflow(self, namespace: dict) -> None:
        """No graph at all: the ops that made the program's tensors (record/dataflow.py)."""
        extra = []
        if self.plain_output is not None:
            module, out = self.plain_output
            name = next((k for k, v in namespace.items() if v is module and not k.startswith("_")),
                        type(module).__name__)
            extra.append((f"{name}(…)", out))
        if self.plain_read is not None:
            kind, tensor = self.plain_read
            extra.append((f"the tensor read by .{kind}()", tensor))
        if self.dataflow.gave_up:
            self.warn(hooks.Message("warning.dataflow_stopped", "No graph: no tensor required grad, and the run's data "
                                    f"flow was not followed past its first {dataflow.MAX_FOLLOWED:,} operations.",
                                    n=f"{dataflow.MAX_FOLLOWED:,}"))
        roots = dataflow.roots(self.dataflow, namespace, extra)
        if roots:
            names = {id(v): k for k, v in namespace.items() if isinstance(v, Tensor) and not k.startswith("_")}
            self.add_graph(dataflow.graph(self.dataflow, roots, names, TensorMemo()))
        self.stop_dataflow()


def model_called(module, out) -> None:
    """hooks.MODULE_CALLED: keep the model's output if it built a graph (a tensor with a grad_fn)."""
    rec = current()
    if rec is not None and rec.backward_calls == 0 and isinstance(out, Tensor):
        if out.grad_fn is not None:
            rec.unheld_graph = (module, out)
        else:
            rec.plain_output = (module, out)


def value_read(tensor, kind: str) -> None:
    """hooks.VALUE_READ: a value the program read (`f(x).item()`) that a graph made is kept too, for
    a graph built inside a function with no model (the last such read or model output is drawn)."""
    rec = current()
    if rec is not None and rec.backward_calls == 0:
        if tensor.grad_fn is not None:
            rec.unheld_graph = (kind, tensor)
        else:
            rec.plain_read = (kind, tensor)


class _TensorNames:
    """Variable names of the user's tensors (from the calling frames), for readable labels: id of a
    tensor -> its name, as `.get`. The frames' variables are read at the call; which of them are
    tensors, and their names, only when first asked (at finish: a loop's calls past max_graphs are
    each thrown away at the next). The variables read are held meanwhile, so an id asked about is
    still the tensor it was at the call: a builder asks only about tensors alive at the call."""
    __slots__ = ("scopes", "names")

    def __init__(self, frame):
        scopes = []
        while frame is not None:
            if frame.f_code.co_filename == USER_FILENAME:
                local = frame.f_locals
                scopes.append(list(local.items()))
                if local is not frame.f_globals:    # (at module level they are one dict: read once)
                    scopes.append(list(frame.f_globals.items()))
            frame = frame.f_back
        self.scopes, self.names = scopes, None

    def get(self, key: int, default=None):
        return (self.names if self.names is not None else self.settle()).get(key, default)

    def settle(self) -> dict:
        """Match the names now, and let the variables go (a builder kept past its call's finish:
        the trajectory's iterations with steps)."""
        if self.names is None:
            self.names = names = {}
            for scope in self.scopes:
                for k, v in scope:
                    if isinstance(v, Tensor) and not k.startswith("_"):
                        names.setdefault(id(v), k)
            self.scopes = None
        return self.names


class DynamicGraphBuilder:
    """Walks the grad_fn DAG of one backward call and builds its forward and backward Graphs."""

    def __init__(self, root, names: dict[int, str], values: ValueStore | None = None, finished_later: bool = False):
        self.root = root
        # finish() runs once the program has gone on (a call past max_graphs, kept in case it is the
        # last): leaves' values and gradients are copied, as an optimizer step or zero_grad() changes
        # them in place. A call recorded at once is written right after its walk, from the arrays
        # themselves (a ValueStore copies what it keeps): a leaf's .grad that is the gradient its
        # AccumulateGrad step received is then one array, summarised once.
        self.finished_later = finished_later
        self.values = values
        self.names = names
        self.fwd_nodes: list[dict] = []
        self.fwd_edges: list[dict] = []
        self.bwd_nodes: list[dict] = []
        self.bwd_edges: list[dict] = []
        self.fwd_id: dict[int, str] = {}      # id(Node or leaf Tensor) -> forward node id
        self.bwd_id: dict[int, str] = {}      # id(Node or AccumulateGrad) -> backward node id
        self.leaves: list = []                # (forward id, Tensor) whose grads are read at finish
        self.gradcheck: dict = {}             # forward id -> finite-difference check of that leaf
        self.gradcheck_error: str | None = None   # why the check could not run (the graph's warnings say)
        self.built = False                    # fwd_nodes / fwd_edges are record dicts (not snapshot tuples)
        self.step_tensors = 0                 # how many of the record's step gradients finish() wrote
        self.backward_built = False
        self.memo: TensorMemo | None = None    # step_writer's, which finish() goes on with
        self.sent: dict | None = None         # step_writer's: forward id -> the gradient sent to that leaf
        self.held: dict = {}                  # step_writer's: forward id -> the ValueStore's bytes held for its gradient
        self.grad_copies: dict = {}           # snapshot_grads' copies (a call written later): id(leaf's .grad) -> its copy
        self.unnamed: list = []               # (a leaf's record, id of the leaf, a scalar?) named at _forward_records

    def _tensor_node(self, t, nid: str) -> dict:
        if t.requires_grad:
            kind = "param" if t._name else "input"
        else:
            kind = "const"
        name = t._name
        label = repr(t.array.item()) if t._is_scalar else name
        entry = {"id": nid, "op": kind, "label": label, "kind": kind, "shape": list(t.array.shape),
                 # leaves finished later are copied: an optimizer step will change them in place meanwhile
                 "dtype": dtype_name(t.array.dtype), "module": t._module,
                 "value": (t.array.copy() if self.finished_later else _c_order(t.array)) if t.requires_grad else t.array,
                 "grad": None, "line": None, "name": name}
        if not name:        # its variable's name, matched at _forward_records (label: or "const" / "leaf")
            self.unnamed.append((entry, id(t), t._is_scalar))
        return entry

    def snapshot_forward(self) -> None:
        """Forward DAG, taken before backward frees the graph (values as they were). What a node
        record needs is read now, into a tuple per op node and per edge: the records (dicts) are
        built by `_forward_records`, at finish, only for a call the record keeps (a loop's calls
        past max_graphs are snapshot each in turn and all but the last dropped)."""
        order = _topo_nodes(self.root.grad_fn)
        self.too_large = len(order) > MAX_GRAPH_NODES
        if self.too_large:
            self.order, self.total_nodes = [], len(order)
            return
        fwd_id, fwd_nodes, fwd_edges = self.fwd_id, self.fwd_nodes, self.fwd_edges
        source_of = self._source_of
        for node in order:
            fid = f"n{len(fwd_id) + 1}"
            fwd_id[id(node)] = fid
            for t in node.saved:
                fn = t.grad_fn          # (_source_of's common case, inlined: an op's output seen already)
                src = fwd_id.get(id(fn)) if fn is not None else None
                fwd_edges.append((src if src is not None else source_of(t), fid, t.array.shape))
            out = node.out_ref()
            # (the output's id: its variable's name is matched at _forward_records)
            fwd_nodes.append((fid, node.op, node.name, node.out_data, node.module, node.line,
                              id(out) if out is not None else None))
        self.order = order

    def _forward_records(self) -> None:
        """The forward nodes and edges as run-record dicts (from snapshot_forward's tuples; a leaf's
        record is made when it is found, with the copy of its value)."""
        if self.built:
            return
        self.built = True
        names = self.names.get
        for entry, tid, is_scalar in self.unnamed:
            entry["name"] = name = names(tid)
            if not is_scalar:
                entry["label"] = name or ("const" if entry["kind"] == "const" else "leaf")
        self.unnamed = []
        self.fwd_nodes = [_op_record(*entry[:6], names(entry[6]) if entry[6] is not None else None)
                          if type(entry) is tuple else entry for entry in self.fwd_nodes]
        self.fwd_edges = [{"src": src, "dst": dst, "shape": list(shape)} for src, dst, shape in self.fwd_edges]
        if self.fwd_nodes:
            self.fwd_nodes[-1]["kind"] = "output"

    def _source_of(self, t) -> str:
        fwd_id = self.fwd_id
        fn = t.grad_fn
        fid = fwd_id.get(id(fn)) if fn is not None else None
        if fid is None:
            fid = fwd_id.get(id(t))
            if fid is None:
                fid = fwd_id[id(t)] = f"n{len(fwd_id) + 1}"
                self.fwd_nodes.append(self._tensor_node(t, fid))
                if t.requires_grad:
                    self.leaves.append((fid, t))
        return fid

    def _backward_graph(self) -> None:
        if self.backward_built:        # (a trajectory's iteration may have written its steps already)
            return
        self.backward_built = True
        for node in reversed(self.order):
            bid = f"b{len(self.bwd_id) + 1}"
            self.bwd_id[id(node)] = bid
            self.bwd_nodes.append({"id": bid, "op": node.name, "label": node.name, "kind": "grad",
                                   "forward_op": node.op.name,
                                   "shape": list(node.out_data.shape), "dtype": dtype_name(node.out_data.dtype),
                                   "module": node.module, "line": node.line, "rule": node.op.rule,
                                   "forward_node": self.fwd_id[id(node)], "value": None, "grad": None})
        for fid, t in self.leaves:
            acc = autograd.gradient_edge(t)
            bid = f"b{len(self.bwd_id) + 1}"
            self.bwd_id[id(acc)] = bid
            self.bwd_nodes.append({"id": bid, "op": "AccumulateGrad", "kind": "accumulate",
                                   "label": f"AccumulateGrad\n{t._name or self.names.get(id(t)) or 'leaf'}",
                                   "shape": list(t.array.shape), "dtype": dtype_name(t.array.dtype),
                                   "module": t._module, "line": None, "forward_node": fid,
                                   "rule": "leaf.grad += grad", "value": None, "grad": None})
        for node in self.order:
            for nxt, t in zip(_next_nodes(node), node.saved):
                if nxt is not None and id(nxt) in self.bwd_id:
                    self.bwd_edges.append({"src": self.bwd_id[id(node)], "dst": self.bwd_id[id(nxt)],
                                           "shape": list(t.array.shape)})

    def step_writer(self, steps: list, step_tensors: int, stats: BlockStats):
        """BACKWARD_STEP's observer for a call written right after its walk: each step's gradients
        are written (summarised, their values copied into the ValueStore) as the walk makes them,
        while in cache, and the walk frees them as it does without a recorder — holding every one
        until the walk ended put the engine's allocations on fresh pages (an LSTM LM's walk: 15k ->
        95k page faults, 0.1 s). `steps` gets (node, Written, [Written]) as finish() and the
        trajectory read them; the record's budget of step gradients is spent as steps_record
        spends it (`step_tensors` is what finish() will be given: no other graph is written
        between). The ValueStore keeps what it kept when all were written after the walk, in the
        same order — the forward nodes' values, each leaf's gradient after its value, then the
        steps' gradients: the forward values are written before the walk (each is the same array
        after it: no op changes its inputs' values while differentiating them) with room held for
        each leaf's gradient where it stands (`self.held`), which its AccumulateGrad step or
        finish() writes into."""
        self.memo = memo = TensorMemo(self.values, stats)
        self.sent = sent = {}
        leaves = dict(self.leaves)
        self.held = held = {}                  # forward id of a leaf -> the store's bytes held for its gradient
        for entry in self.fwd_nodes:
            memo(entry[3] if type(entry) is tuple else entry["value"])
            if self.values is not None and type(entry) is dict and entry["id"] in leaves:
                held[entry["id"]] = self.values.reserve(leaves[entry["id"]].array)
        if self.too_large:
            return lambda node, grad, in_grads: None
        self._backward_graph()
        bwd_id, fwd_id, budget = self.bwd_id, self.fwd_id, [step_tensors, False]    # left, bare

        def written(g, fits: bool):
            if g is None:
                return None
            a = getattr(g, "array", g)
            return Written(memo.write(g) if fits else None, a.size if type(a) is np.ndarray else np.asarray(a).size)

        def on_step(node, grad, in_grads):
            if len(steps) >= MAX_STEPS:
                return
            if type(node) is autograd.AccumulateGrad:
                fid = fwd_id.get(id(node.variable))
                if fid is not None:
                    sent[fid] = np.asarray(getattr(grad, "array", grad))
                    t = node.variable.grad     # (the walk has accumulated it: the leaf's .grad, when it is this array)
                    if t is not None and t.array is sent[fid] and fid in held:
                        memo.held(grad, held.pop(fid))
            if id(node) in bwd_id and not budget[1] and 1 + len(in_grads) <= budget[0]:
                budget[0] -= 1 + len(in_grads)
                steps.append((node, written(grad, True), [written(g, True) for g in in_grads]))
            else:
                budget[1] = budget[1] or id(node) in bwd_id
                steps.append((node, written(grad, False), [written(g, False) for g in in_grads]))
        return on_step

    def _sent_to_leaves(self, steps: list) -> dict:
        """The gradient this walk delivered to each leaf (forward id -> array)."""
        if self.sent is not None:
            return self.sent
        sent: dict = {}
        for node, grad, _ in steps:
            if isinstance(node, autograd.AccumulateGrad):
                fid = self.fwd_id.get(id(node.variable))
                if fid is not None:
                    sent[fid] = np.asarray(getattr(grad, "array", grad))
        return sent

    def run_gradcheck(self, steps: list) -> None:
        """Finite differences against the gradients this backward sent to each leaf."""
        root_node = self.root.grad_fn
        try:
            self.gradcheck = gradcheck.check(self.order, root_node, np.ones_like(self.root.array),
                                             self.leaves, self._sent_to_leaves(steps))
        except Exception as exc:  # noqa: BLE001 - a check that cannot run must not fail the user's run
            self.gradcheck_error = f"{type(exc).__name__}: {exc}"

    def snapshot_grads(self, steps: list = ()) -> None:
        """Each leaf's .grad now; for autograd.grad / tape.gradient, which leave .grad alone,
        the gradient the walk delivered to it."""
        grads = [(fid, t.grad) for fid, t in self.leaves]
        # (what the walk sent is looked for only when a leaf has no .grad: each call of a loop otherwise)
        sent = self._sent_to_leaves(list(steps)) if any(g is None for _, g in grads) else {}
        if not self.finished_later:
            self.leaf_grads = {fid: (_c_order(g.array) if g is not None else sent.get(fid)) for fid, g in grads}
            return
        # a call written later copies them, and kept_past_the_walk finds the copies by the arrays'
        # ids: the same array standing in the walk's steps is not copied twice
        self.leaf_grads = {fid: (g.array.copy() if g is not None else sent.get(fid)) for fid, g in grads}
        self.grad_copies = {id(g.array): self.leaf_grads[fid] for fid, g in grads if g is not None}

    def kept_past_the_walk(self, steps: list) -> list:
        """`steps` to be read once the program has gone on: a gradient a leaf's .grad now holds
        (AccumulateGrad kept the array, as PyTorch does: hooks.BACKWARD_STEP) is copied wherever it
        stands, since a later backward adds into .grad in place (clip_grad_norm_ scales it, zero_()
        clears it). The walk's other arrays are the recorder's alone.
        When each such gradient is a C-ordered one snapshot_grads copied just now (a call written
        later), the list is not rebuilt: the copies stand in for the arrays when the steps are
        written (`_KeptSteps`; the list holds the arrays, so their ids are theirs until then), and
        a loop's calls that are thrown away at the next do not walk their steps here."""
        if type(steps) is _KeptSteps:        # (kept already: the trajectory's iteration is the recorder's call)
            return steps
        grads = [t.grad.array for _, t in self.leaves if t.grad is not None]
        copied, self.grad_copies = self.grad_copies, {}       # (ids valid only until the program goes on)
        if not grads:
            return steps
        # (a C-ordered one's copy: `a.copy()` and `np.array(a)` are then the same bytes in the same layout)
        if all(id(a) in copied and a.flags.c_contiguous for a in grads):
            kept = _KeptSteps(steps)
            kept.copies = {id(a): copied[id(a)] for a in grads}
            return kept
        copies = dict.fromkeys(map(id, grads))

        def own(a):
            if a is None or id(a) not in copies:
                return a
            if copies[id(a)] is None:
                copies[id(a)] = np.array(a)
            return copies[id(a)]
        return [(node, own(grad), [own(g) for g in in_grads]) for node, grad, in_grads in steps]

    def finish(self, title: str, steps: list, step_tensors: int = MAX_STEP_TENSORS,
               stats: BlockStats | None = None) -> dict:
        """Serialize (values become run-record Tensors only now, so unrecorded calls cost little).
        The steps carry their gradients while they fit in `step_tensors` (grad_in and grad_out
        entries); from the first that does not, none does (`self.step_tensors`: how many were used)."""
        self._forward_records()
        self._backward_graph()
        tensor_json = self.memo if self.memo is not None else TensorMemo(self.values, stats)
        held = self.held
        for n in self.fwd_nodes:
            n["value"] = tensor_json(n["value"])
            if n["id"] in self.leaf_grads:
                n["grad"] = tensor_json.held(self.leaf_grads[n["id"]], held.pop(n["id"], 0))
            if n["id"] in self.gradcheck:
                n["gradcheck"] = self.gradcheck[n["id"]]
        for reserved in held.values():         # (a leaf not in the graph's records: none, but never kept held)
            self.values.release(reserved)
        self.held = {}
        tensor_json.flush()
        if self.too_large:
            note = (f"This backward went through {self.total_nodes} operations, more than the "
                    f"{MAX_GRAPH_NODES} Dagscope draws; it ran, but its graph is not recorded.")
            return {"kind": "dynamic", "title": title, "capture": None, "forward": {"nodes": [], "edges": []},
                    "backward": {"nodes": [], "edges": []}, "steps": [], "passes": [], "kernels": [],
                    "timings": None, "warnings": [note], "too_large": True}
        step_json, used, bare = self.steps_record(steps, tensor_json, step_tensors)
        tensor_json.flush()
        self.step_tensors = used
        warnings = [hooks.Message("warning.gradcheck_failed", f"the gradient check could not run: {self.gradcheck_error}",
                                  quote=str(self.gradcheck_error)[:900])] if self.gradcheck_error else []
        if bare is not None:
            warnings.append(hooks.Message(
                "warning.steps_without_gradients",
                f"Steps {bare + 1}-{len(step_json)} of {len(step_json)} are shown without their gradients: "
                f"a run record keeps the gradients of at most {MAX_STEP_TENSORS:,} tensors of backward "
                f"steps (each step's gradient in and gradients out), and the steps recorded before these "
                f"used them.", first=bare + 1, last=len(step_json), n=len(step_json), limit=f"{MAX_STEP_TENSORS:,}"))
        return {"kind": "dynamic", "title": title, "capture": None,
                "forward": {"nodes": self.fwd_nodes, "edges": self.fwd_edges},
                "backward": {"nodes": self.bwd_nodes, "edges": self.bwd_edges},
                "steps": step_json, "passes": [], "kernels": [], "timings": None, "warnings": warnings}

    def steps_record(self, steps: list, tensor_json, step_tensors: int) -> tuple[list, int, int | None]:
        """The record's `steps` of this walk (a TensorMemo writes their gradients; flush it after),
        with their gradients while they fit in `step_tensors`; and how many were used, and the
        first step left without them (None when all fit)."""
        self._backward_graph()
        step_json = []
        bwd_id = self.bwd_id
        left, bare = step_tensors, None       # bare: the first step without its gradients
        own = steps.copies.get if type(steps) is _KeptSteps else None       # (kept_past_the_walk's copies)
        for node, grad, in_grads in steps:
            bid = self.bwd_id.get(id(node))
            if bid is None:
                continue
            if bare is None and 1 + len(in_grads) <= left:
                left -= 1 + len(in_grads)
                if own is not None:
                    grad, in_grads = own(id(grad), grad), [own(id(g), g) for g in in_grads]
                grad_in, grad_out = [tensor_json(grad)], [tensor_json(g) for g in in_grads]
            else:
                bare = len(step_json) if bare is None else bare
                grad_in = grad_out = None
            step_json.append({
                "index": len(step_json), "node": bid, "forward_node": self._forward_of(node),
                "op": node.name, "rule": getattr(getattr(node, "op", None), "rule", "leaf.grad += grad"),
                "grad_in": grad_in, "grad_out": grad_out,
                "targets": [bwd_id.get(id(nxt)) for nxt in
                            (node.edges if isinstance(node, autograd.Node) else
                             [nxt for nxt, _ in getattr(node, "next_functions", ())])]})
        return step_json, step_tensors - left, bare

    def _forward_of(self, node) -> str | None:
        if isinstance(node, autograd.AccumulateGrad):
            return self.fwd_id.get(id(node.variable))
        return self.fwd_id.get(id(node))


class _KeptSteps(list):
    """A call's steps, read once the program has gone on: `copies` (id of a leaf's .grad the list
    holds -> its copy at the call) stand in for those arrays (DynamicGraphBuilder.kept_past_the_walk)."""
    __slots__ = ("copies",)


def _c_order(array: np.ndarray) -> np.ndarray:
    """array, or its C-ordered copy when it is laid out otherwise: what `.copy()` gave, so that a
    leaf's statistics are summed in the order they always were."""
    return array if array.flags.c_contiguous else array.copy()


def _op_record(fid: str, op, grad_fn: str, data, module, line, name) -> dict:
    return {"id": fid, "op": op.name, "label": op.name, "kind": "op", "shape": list(data.shape),
            "dtype": dtype_name(data.dtype), "module": module, "line": line, "value": data, "grad": None,
            "name": name, "grad_fn": grad_fn, "formula": op.formula}


def _graph_roots(namespace: dict) -> list[tuple[str, object]]:
    """User tensors with a grad_fn that no other such tensor's graph contains (the graph tops)."""
    candidates = [(k, v) for k, v in namespace.items()
                  if isinstance(v, Tensor) and v.grad_fn is not None and not k.startswith("_")]
    inner = set()
    for _, t in candidates:
        for node in _topo_nodes(t.grad_fn)[:-1]:
            inner.add(id(node))
    roots = [(k, t) for k, t in candidates if id(t.grad_fn) not in inner]
    return roots[::-1]          # the last one the program made first


def _topo_nodes(root) -> list:
    """Op nodes reachable from `root`, inputs before their users (iterative post-order)."""
    if root is None or isinstance(root, autograd.AccumulateGrad):
        return []
    order, seen = [], {id(root)}
    stack = [(root, iter(_next_nodes(root)))]
    accumulate = autograd.AccumulateGrad
    while stack:
        node, it = stack[-1]
        for nxt in it:
            if nxt is not None and id(nxt) not in seen and not isinstance(nxt, accumulate):
                seen.add(id(nxt))
                stack.append((nxt, iter(_next_nodes(nxt))))
                break
        else:
            stack.pop()
            order.append(node)
    return order


def _next_nodes(node) -> tuple:
    """The nodes of node.next_functions, in order: an op Node's `edges` as they are (next_functions
    pairs each with a 0, in a new tuple per call: a loop snapshots its graph at every call)."""
    if isinstance(node, autograd.Node):
        return node.edges
    return tuple([nxt for nxt, _ in node.next_functions])
