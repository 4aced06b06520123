"""`torch.autograd`: grad, backward, custom Functions, gradcheck/gradgradcheck, and the grad-mode switches."""
from __future__ import annotations

import numpy as np

from engine import record
from engine.autograd import enable_grad, no_grad, set_grad_enabled  # noqa: F401
from engine.backward import run_backward
from engine.compat.torch._surface import unsupported_getattr as _unsupported_getattr
from engine.compat.torch.autograd import function  # noqa: F401  (torch.autograd.function)
from engine.autograd_check import gradcheck, gradgradcheck  # noqa: F401
from engine.autograd_function import Function, FunctionCtx, once_differentiable  # noqa: F401
from engine.tensor import Tensor


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, allow_unused=None,
         is_grads_batched=False, materialize_grads=False):
    outputs = [outputs] if isinstance(outputs, Tensor) else list(outputs)
    single = isinstance(inputs, Tensor)
    inputs = [inputs] if single else list(inputs)
    for t in inputs:
        if not t.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    for o in outputs:
        if not o.requires_grad:
            raise RuntimeError("element 0 of tensors does not require grad and does not have a grad_fn")
    if grad_outputs is None:
        grad_outputs = [None] * len(outputs)
    elif isinstance(grad_outputs, Tensor):
        grad_outputs = [grad_outputs]
    seeds = []
    for o, g in zip(outputs, grad_outputs):
        if g is None:
            if o.array.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            g = np.ones_like(o.array)
        elif isinstance(g, Tensor):
            g = g if create_graph else g.array
        seeds.append(g)
    retain = create_graph if retain_graph is None else retain_graph
    allow_unused = materialize_grads if allow_unused is None else allow_unused
    with record.backward_call(outputs[0], retain, call=": autograd.grad()"):
        result = run_backward(outputs, seeds, retain_graph=retain, create_graph=create_graph, inputs=inputs,
                              allow_unused=allow_unused)
    if materialize_grads:
        result = tuple(Tensor(np.zeros_like(t.array)) if r is None else r for r, t in zip(result, inputs))
    return result


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    grads = grad_tensors if isinstance(grad_tensors, (list, tuple)) else [grad_tensors] * len(tensors)
    for i, (t, g) in enumerate(zip(tensors, grads)):
        # Several roots share one graph: keep it until the last one has gone through.
        keep = retain_graph if retain_graph is not None else (create_graph or i < len(tensors) - 1)
        t.backward(g, retain_graph=keep, create_graph=create_graph, inputs=inputs)


def Variable(data, requires_grad: bool = False, volatile: bool = False):
    """The pre-0.4 wrapper: today simply the tensor itself (with requires_grad set)."""
    t = data if isinstance(data, Tensor) else Tensor(np.asarray(data))
    if requires_grad:
        t.requires_grad_(True)
    return t


__getattr__ = _unsupported_getattr("torch.autograd", globals())
