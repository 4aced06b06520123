"""torch.autograd.gradcheck and gradgradcheck: a function's analytical Jacobian (one backward per
output element, as PyTorch's slow mode) against central differences, with PyTorch's tolerances,
warning and error message. (PyTorch's extra checks — reentrant backward, undefined output grads,
batched grads — are not made: each is about a custom backward's plumbing, not its formula.)"""
from __future__ import annotations

import warnings

import numpy as np

from engine import creation
from engine.backward import run_backward
from engine.tensor import Tensor


class GradcheckError(RuntimeError):
    """PyTorch's error for a gradient that does not match (a RuntimeError)."""


def _as_tuple(x) -> tuple:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _outputs(func, inputs) -> tuple:
    return tuple(o for o in _as_tuple(func(*inputs)) if isinstance(o, Tensor))


def _numerical(func, inputs, diff, outputs, eps) -> list:
    """Per differentiable input, per output: (input numel, output numel) of central differences."""
    result = []
    for t in diff:
        columns = [np.zeros((t.array.size, o.array.size), dtype=t.array.dtype) for o in outputs]
        flat = t.array.reshape(-1)       # a view: nudging it nudges the input (PyTorch nudges in place)
        for k in range(flat.size):
            orig = flat[k].copy()
            # (not under no_grad: gradgradcheck's function takes a gradient inside)
            flat[k] = orig - eps
            minus = [o.array.copy() for o in _outputs(func, inputs)]
            flat[k] = orig + eps
            plus = [o.array.copy() for o in _outputs(func, inputs)]
            flat[k] = orig
            for j, (a, b) in enumerate(zip(plus, minus)):
                columns[j][k] = ((a - b) / (2 * eps)).reshape(-1)
        result.append(columns)
    return result


def _analytical(diff, outputs) -> list:
    """Per differentiable input, per output: the Jacobian from one backward per output element."""
    result = [[np.zeros((t.array.size, o.array.size), dtype=t.array.dtype) for o in outputs] for t in diff]
    for j, o in enumerate(outputs):
        if not o.requires_grad:
            continue
        for m in range(o.array.size):
            seed = np.zeros_like(o.array)
            seed.reshape(-1)[m] = 1
            grads = run_backward([o], [seed], retain_graph=True, inputs=list(diff), allow_unused=True)
            for i, g in enumerate(grads):
                if g is not None:
                    result[i][j][:, m] = np.broadcast_to(g.array if isinstance(g, Tensor) else g,
                                                         diff[i].array.shape).reshape(-1)
    return result


def gradcheck(func, inputs, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True, nondet_tol: float = 0.0, check_undefined_grad: bool = True,
              check_grad_dtypes: bool = False, check_batched_grad: bool = False,
              check_batched_forward_grad: bool = False, check_forward_ad: bool = False,
              check_backward_ad: bool = True, fast_mode: bool = False, masked=None) -> bool:
    inputs = _as_tuple(inputs)
    diff = [t for t in inputs if isinstance(t, Tensor) and t.requires_grad]
    if not diff:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of them "
                         "have requires_grad=True.")
    for i, t in enumerate(inputs):
        if isinstance(t, Tensor) and t.requires_grad and t.array.dtype != np.float64:
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating point or complex. "
                          "This check will likely fail if all the inputs are not of double precision floating "
                          "point or complex. ", UserWarning, stacklevel=2)
    outputs = _outputs(func, inputs)
    numerical = _numerical(func, inputs, diff, outputs, eps)
    analytical = _analytical(diff, outputs)
    for i in range(len(diff)):
        for j in range(len(outputs)):
            a, n = analytical[i][j], numerical[i][j]
            if not np.allclose(a, n, rtol=rtol, atol=atol):
                if not raise_exception:
                    return False
                raise GradcheckError(f"Jacobian mismatch for output {j} with respect to input {i},\n"
                                     f"numerical:{Tensor(n)!r}\nanalytical:{Tensor(a)!r}\n")
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
                  gen_non_contig_grad_outputs: bool = False, raise_exception: bool = True, nondet_tol: float = 0.0,
                  check_undefined_grad: bool = True, check_grad_dtypes: bool = False,
                  check_batched_grad: bool = False, check_fwd_over_rev: bool = False,
                  check_rev_over_rev: bool = True, fast_mode: bool = False, masked: bool = False) -> bool:
    """gradcheck of the function (inputs, grad_outputs) -> the gradients of func's outputs (taken with
    create_graph=True), so second derivatives are checked. Without grad_outputs, random ones are drawn
    as PyTorch draws them (randn_like each output), so a seeded program's later draws stay PyTorch's."""
    inputs = _as_tuple(inputs)
    diff = [t for t in inputs if isinstance(t, Tensor) and t.requires_grad]
    outputs = _outputs(func, inputs)
    if grad_outputs is None:      # PyTorch's: randn_like of each output, from the global generator
        grad_outputs = tuple(creation.randn_like(o if o.array.dtype.kind == "f" else o.double()).requires_grad_()
                             for o in outputs)
    grad_outputs = _as_tuple(grad_outputs)
    n = len(inputs)

    def first_derivatives(*args):
        ins, gos = args[:n], args[n:]
        outs = _outputs(func, ins)
        wanted = [t for t in ins if isinstance(t, Tensor) and t.requires_grad]
        seeds = [g for o, g in zip(outs, gos) if o.requires_grad]
        roots = [o for o in outs if o.requires_grad]
        grads = run_backward(roots, seeds, retain_graph=True, create_graph=True, inputs=wanted,
                                      allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_derivatives, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception) if diff else gradcheck(func, inputs)
