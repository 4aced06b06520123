"""The backward pass, as PyTorch's engine runs it: `run_backward` orders the nodes that ops recorded
(engine.autograd) by a dependency count and a ready queue, walks them in reverse and sends the
gradients on, into the leaves' `.grad` or (autograd.grad) back to the caller.

Read `run_backward` first: it is a dependency count, a ready queue and a loop — the whole engine.
It sits above Tensor (it makes tensors: `.grad`, hook arguments, a create_graph backward's values),
so Tensor.backward is bound by engine.tensor_methods.
"""
from __future__ import annotations

import gc
import heapq
import sys

import numpy as np

from engine.autograd import AccumulateGrad, Node, _GradMode, gradient_edge, is_grad_enabled
from engine.hooks import BACKWARD_STEP
from engine.ops.builder import NUMPY
from engine.tensor import Tensor, TensorBuilder, apply


# ---- the backward pass ----------------------------------------------------------------------------

def _edges(node) -> tuple:
    """The nodes `node` sends gradients to (None for an input without grad), for any node kind:
    Node and AccumulateGrad keep them as `edges`; others (custom Functions) as next_functions."""
    if isinstance(node, (Node, AccumulateGrad)):
        return node.edges
    return tuple([nxt for nxt, _ in node.next_functions])


def _dependencies(roots) -> dict:
    """How many consumers each reachable node has (iterative: graphs may be 200,000 nodes deep)."""
    deps: dict = {}
    stack = [r for r in roots if r is not None]
    queued = set(stack)
    while stack:
        node = stack.pop()
        for nxt in (node.edges if isinstance(node, Node) else _edges(node)):
            if nxt is None:
                continue
            if nxt in deps:
                deps[nxt] += 1
            else:                        # first consumer: walk on from it (unless it is a root
                deps[nxt] = 1            # or a leaf's accumulator, which sends nothing on)
                if type(nxt) is not AccumulateGrad and nxt not in queued:
                    stack.append(nxt)
    return deps


def run_backward(roots: list, grads: list, retain_graph: bool = False, create_graph: bool = False,
                 inputs: list | None = None, allow_unused: bool = False):
    """Send `grads` back from `roots` (Tensors). With `inputs`, return their gradients instead of
    accumulating into `.grad` (this is `autograd.grad`)."""
    # The walk allocates many short-lived containers and creates no garbage cycles: pausing the
    # cyclic GC meanwhile saves ~10% per node (its collections would rescan the whole graph).
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _walk(roots, grads, retain_graph, create_graph, inputs, allow_unused)
    finally:
        if collecting:
            gc.enable()


def backward(root, grad, retain_graph: bool, create_graph: bool, inputs: list | None) -> None:
    """Tensor.backward: accumulate gradients into the leaves' .grad or, given `inputs`, into those
    tensors' .grad only (leaves or not), as PyTorch's backward(inputs=...)."""
    if inputs is None:
        run_backward([root], [grad], retain_graph=retain_graph, create_graph=create_graph)
        return
    grads = run_backward([root], [grad], retain_graph=retain_graph, create_graph=create_graph, inputs=inputs,
                         allow_unused=True)
    for t, g in zip(inputs, grads):
        if g is not None:                # (a non-leaf's hooks ran in the walk, when its node did)
            _accumulate_into_leaf(t, g, create_graph, run_hooks=t.grad_fn is None)


def _walk(roots, grads, retain_graph, create_graph, inputs, allow_unused):
    builder = TensorBuilder() if create_graph else NUMPY
    capture = {}
    if inputs is not None:
        capture = {id(gradient_edge(t)): i for i, t in enumerate(inputs) if t.requires_grad}
    root_nodes = [gradient_edge(r) for r in roots]
    pending: dict = {}
    for node, g in zip(root_nodes, grads):
        if node is not None:
            pending[node] = _accumulate(builder, pending.get(node), g)
    deps = _dependencies(root_nodes)
    ready = [(-n.seq, n) for n in dict.fromkeys(root_nodes) if n is not None and deps.get(n, 0) == 0]
    heapq.heapify(ready)
    heappush, heappop = heapq.heappush, heapq.heappop
    results: list = [None] * (len(inputs) if inputs is not None else 0)
    observers = BACKWARD_STEP
    # nodes whose pending gradient is the very array of an `in_grads` list the observers were
    # given (an observer may hold that list: one reference AccumulateGrad allows for, below)
    listed: set = set()
    prev_mode = is_grad_enabled()
    _GradMode.enabled = create_graph
    node = heappop(ready)[1] if ready else None
    try:
        while node is not None:
            grad = pending.pop(node, None)
            if capture and id(node) in capture:
                results[capture[id(node)]] = grad
            if type(node) is AccumulateGrad:
                if grad is not None:
                    if inputs is None:
                        in_grads = None          # the previous node's list may still hold this array
                        # Owned as without observers: the one list of an observer that may hold this
                        # array is allowed for. An observer reading it after the program goes on
                        # copies it first (hooks.BACKWARD_STEP says so).
                        owned = not create_graph and _unshared(grad, node in listed)
                        _accumulate_into_leaf(node.variable, grad, create_graph, owned)
                    for cb in observers:         # autograd.grad's walks are shown too
                        cb(node, grad, ())
                node = heappop(ready)[1] if ready else None
                continue
            is_node = isinstance(node, Node)
            if is_node:
                edges = node.edges
                out = node() if node.moved_out is None else node.moved_out()
            else:
                edges = _edges(node)
                out = node.out_ref()
            if grad is None:
                in_grads = (None,) * len(edges)
            else:
                if out is not None:
                    if out._hooks:
                        grad = _run_tensor_hooks(out, grad, builder)
                    if out._retains_grad and inputs is None:     # accumulated, as a leaf's .grad
                        _accumulate_into_leaf(out, grad, create_graph, run_hooks=False)
                in_grads = node.apply(builder, grad, create_graph)
                if observers:
                    in_grads = _reduce_to_inputs(builder, node, in_grads)
                    for cb in observers:
                        cb(node, grad, in_grads)
            if not retain_graph:
                if is_node:
                    node.freed = True            # Node.release, inlined
                else:
                    node.release()
            # The next node is the ready one made last (highest seq). Usually exactly one node
            # becomes ready and none was waiting (a chain): it runs next without the heap.
            after = None
            # (A Node reads its inputs' shapes from the inputs themselves: see Node.input_shapes.)
            for nxt, g, src in zip(edges, in_grads, node.saved if is_node else node.input_shapes):
                if nxt is None:
                    continue
                if g is not None:
                    shape = src.array.shape if is_node else src
                    if g.shape != shape and tuple(g.shape) != tuple(shape):   # _reduce_to_inputs, inlined
                        g = builder.sum_to_size(g, shape=tuple(shape))
                    old = pending.get(nxt)
                    pending[nxt] = g if old is None else builder.add(old, g)
                    if observers:
                        if old is None:
                            listed.add(nxt)
                        else:
                            listed.discard(nxt)
                left = deps[nxt] - 1
                deps[nxt] = left
                if not left:
                    if after is None and not ready:
                        after = nxt
                    else:
                        if after is not None:
                            heappush(ready, (-after.seq, after))
                            after = None
                        heappush(ready, (-nxt.seq, nxt))
            g = old = None               # drop loop references: a leaf may then keep its gradient uncopied
            node = after if after is not None else (heappop(ready)[1] if ready else None)
    finally:
        _GradMode.enabled = prev_mode
    if inputs is not None:
        for i, (t, r) in enumerate(zip(inputs, results)):
            if r is None and not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have been used in "
                                   "the graph. Set allow_unused=True if this is the desired behavior.")
            if r is not None and not isinstance(r, Tensor):
                results[i] = Tensor(r)
        return tuple(results)
    return None


def _reduce_to_inputs(builder, node, in_grads) -> tuple:
    """Undo broadcasting: each input's gradient is summed down to that input's shape."""
    out = list(in_grads)
    if isinstance(node, Node):           # (its input_shapes and edges, read without building tuples: once per step)
        for i, (g, t, nxt) in enumerate(zip(in_grads, node.saved, node.edges)):
            if g is None:
                continue
            if nxt is None:
                out[i] = None
            else:
                shape = t.array.shape
                if g.shape != shape and tuple(g.shape) != tuple(shape):
                    out[i] = builder.sum_to_size(g, shape=tuple(shape))
        return out
    for i, (g, shape, nxt) in enumerate(zip(in_grads, node.input_shapes, _edges(node))):
        if g is None:
            continue
        if nxt is None:
            out[i] = None
        elif g.shape != shape and tuple(g.shape) != tuple(shape):
            out[i] = builder.sum_to_size(g, shape=tuple(shape))
    return out


def _accumulate(builder, old, new):
    return new if old is None else builder.add(old, new)


def _run_tensor_hooks(t, grad, builder):
    for hook in t._hooks:
        result = hook(grad if isinstance(grad, Tensor) else Tensor(grad))
        if result is not None:
            grad = result if builder is not NUMPY else np.asarray(result.array)
    return grad


def _refcounts(array) -> tuple[int, int]:
    base = array.base
    return sys.getrefcount(array), (0 if base is None else sys.getrefcount(base))


def _calibrate() -> tuple[int, int]:
    """The reference counts `_unshared` sees for an array that nothing but the caller's one local
    variable holds (interpreter versions count stack references differently: measure, don't assume).
    The probe has the same call depth as the real check: caller -> _unshared -> _refcounts."""
    def probe(grad):
        return _refcounts(grad)
    grad = np.empty(1)[::1]            # a view: calibrates the base's count too
    return probe(grad)


_UNSHARED_COUNTS = _calibrate()


def _unshared(grad, listed: bool = False) -> bool:
    """True when nothing but run_backward holds this gradient array (nor, for a view, its base),
    so AccumulateGrad may keep it as .grad without a copy, as PyTorch steals an unshared gradient.
    `listed`: the array stands in an observer's in_grads list, which may hold it once more."""
    if type(grad) is not np.ndarray or not grad.flags.c_contiguous:
        return False
    count, base_count = _refcounts(grad)
    return count <= _UNSHARED_COUNTS[0] + listed and (grad.base is None or base_count <= _UNSHARED_COUNTS[1])


def _accumulate_into_leaf(t, grad, create_graph: bool, owned: bool = False, run_hooks: bool = True) -> None:
    if t._hooks and run_hooks:
        grad = _run_tensor_hooks(t, grad, NUMPY if not create_graph else None)
        owned = False
    if isinstance(grad, Tensor) and not create_graph:
        grad = grad.array
    if t.grad is None:
        if owned and grad.dtype == t.array.dtype:
            t._grad = Tensor(grad)
        elif create_graph and isinstance(grad, Tensor) and grad.requires_grad:
            # Recorded, as PyTorch copies the gradient into a fresh .grad (a CopyBackwards node), so
            # that .grad is not the very tensor a later op of the graph may change.
            t._grad = apply("clone", grad)
            t.grad.grad_fn.rename("CopyBackwards")
        else:
            # A copy (the same array may reach several leaves), in C order: a gradient that arrives
            # as a transposed view would keep a layout that slows every later op on .grad.
            t._grad = Tensor(np.array(grad.array if isinstance(grad, Tensor) else grad, dtype=t.array.dtype,
                                     copy=True, order="C"))
    elif create_graph:
        t._grad = t.grad + grad
    else:
        # In place, as PyTorch accumulates: a reference to x.grad taken earlier sees the sum.
        t.grad.array += grad
