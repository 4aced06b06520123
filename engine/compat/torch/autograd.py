"""`torch.autograd`: grad, backward and (with engine.function_api) custom Functions."""
from __future__ import annotations

from engine.autograd import enable_grad, no_grad, run_backward, set_grad_enabled  # noqa: F401


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, allow_unused=False):
    import numpy as np
    from engine.tensor import Tensor
    outputs = [outputs] if isinstance(outputs, Tensor) else list(outputs)
    single = isinstance(inputs, Tensor)
    inputs = [inputs] if single else list(inputs)
    if grad_outputs is None:
        grad_outputs = [None] * len(outputs)
    elif isinstance(grad_outputs, Tensor):
        grad_outputs = [grad_outputs]
    seeds = []
    for o, g in zip(outputs, grad_outputs):
        if g is None:
            if o.data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            g = np.ones_like(o.data)
        elif isinstance(g, Tensor):
            g = g if create_graph else g.data
        seeds.append(g)
    retain = create_graph if retain_graph is None else retain_graph
    return run_backward(outputs, seeds, retain_graph=retain, create_graph=create_graph, inputs=inputs,
                        allow_unused=allow_unused)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False):
    from engine.tensor import Tensor
    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    grads = grad_tensors if isinstance(grad_tensors, (list, tuple)) else [grad_tensors] * len(tensors)
    for t, g in zip(tensors, grads):
        t.backward(g, retain_graph=True if retain_graph is None and len(tensors) > 1 else retain_graph,
                   create_graph=create_graph)
