"""Module backward hooks (register_full_backward_hook / register_full_backward_pre_hook), built as
PyTorch builds them: identity autograd Functions around the module's input and output (their
grad_fn shows as `BackwardHookFunctionBackward`) catch grad_output and grad_input on the way back.
grad_input has one entry per positional argument, as PyTorch's: the gradient for the tensor input that
requires grad, zeros for another tensor, None for a non-tensor (all None when no input requires grad).
Supported for modules with at most one tensor input that requires grad and one tensor output."""
from __future__ import annotations

import numpy as np

from engine.errors import UnsupportedError
from engine.autograd_function import Function
from engine.tensor import Tensor


class BackwardHookFunction(Function):
    @staticmethod
    def forward(ctx, x, on_grad):
        ctx.on_grad = on_grad
        return x

    @staticmethod
    def backward(ctx, grad):
        return ctx.on_grad(grad), None


class _Pass:
    """One forward call's hook state: grad_output arrives first, grad_input after."""

    def __init__(self, module, args: tuple, grad_index):
        self.module = module
        # what each positional argument contributes to grad_input besides the one that needs a gradient
        self.arg_shapes = [(a.array.shape, a.array.dtype) if isinstance(a, Tensor) else None for a in args]
        self.grad_index = grad_index        # the argument that requires grad (None: none does)
        self.grad_output = None

    def on_output_grad(self, grad):
        for hook in list(self.module._backward_pre_hooks.values()):
            result = hook(self.module, (grad,))
            if result is not None:
                result = result if isinstance(result, tuple) else (result,)
                if len(result) != 1:
                    raise RuntimeError(f"Backward pre hook returned an invalid number of grad_output, got "
                                       f"{len(result)}, but expected 1")
                grad = result[0]
        self.grad_output = (grad,)
        if self.grad_index is None:
            self._call_hooks((None,) * len(self.arg_shapes))
        return grad

    def on_input_grad(self, grad):
        grad_input = tuple(grad if i == self.grad_index else
                           (Tensor(np.zeros(*shape)) if shape is not None else None)
                           for i, shape in enumerate(self.arg_shapes))
        return self._call_hooks(grad_input)[self.grad_index]

    def _call_hooks(self, grad_input: tuple) -> tuple:
        for hook in list(self.module._backward_hooks.values()):
            result = hook(self.module, grad_input, self.grad_output)
            if result is not None:
                result = result if isinstance(result, tuple) else (result,)
                if len(result) != len(grad_input):
                    raise RuntimeError(f"Backward hook returned an invalid number of grad_input, got "
                                       f"{len(result)}, but expected {len(grad_input)}")
                grad_input = result
        return grad_input


def wrap_inputs(module, args: tuple):
    """Route the input through a hook node; returns (args, pass state)."""
    needing = [i for i, a in enumerate(args) if isinstance(a, Tensor) and a.requires_grad]
    if len(needing) > 1:
        raise UnsupportedError(f"backward hooks on {type(module).__name__}: Dagscope supports modules with one "
                               "input that requires grad; register a hook on the tensors instead (Tensor.register_hook).")
    state = _Pass(module, args, needing[0] if needing else None)
    if needing:
        i = needing[0]
        args = args[:i] + (BackwardHookFunction.apply(args[i], state.on_input_grad),) + args[i + 1:]
    return args, state


def wrap_output(module, out, state: _Pass):
    if not isinstance(out, Tensor):
        raise UnsupportedError(f"backward hooks on {type(module).__name__}: Dagscope supports modules that return "
                               "one tensor.")
    if not out.requires_grad:
        return out
    return BackwardHookFunction.apply(out, state.on_output_grad)
