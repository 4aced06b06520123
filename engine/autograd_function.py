"""Custom autograd Functions (`torch.autograd.Function`): a user-written forward and backward that
plug into the engine's backward pass as one node, shown as `<SquareBackward>` as PyTorch does.

`Function.apply` runs `forward` without recording, then gives the output a `CustomNode`; the
node follows the same protocol as `engine.autograd.Node`, so `run_backward` and the recorder
treat it like any built-in op.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np

from engine import autograd
from engine.compat.torch_class_names import TorchABCClassRepr
from engine.errors import UnsupportedError
from engine.hooks import NODE_MADE
from engine.tensor import Tensor


@dataclass(frozen=True)
class CustomOp:
    """What the recorder reads from `node.op` (name, forward formula, backward rule)."""
    name: str
    formula: str
    rule: str


class FunctionCtx:
    """The `ctx` passed to forward and backward: saved tensors and which inputs need a gradient."""

    def __init__(self, needs_input_grad: tuple):
        self.needs_input_grad = needs_input_grad
        self.materialize_grads = True
        self._saved: tuple = ()
        self._freed = False
        self._non_differentiable: set = set()

    def save_for_backward(self, *tensors) -> None:
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(f"save_for_backward can only save variables, but argument {i} is of type "
                                f"{type(t).__name__}")
        self._saved = tensors

    @property
    def saved_tensors(self) -> tuple:
        if self._freed:
            raise RuntimeError(autograd.SECOND_BACKWARD)
        return self._saved

    def mark_non_differentiable(self, *tensors) -> None:
        self._non_differentiable.update(id(t) for t in tensors)

    def set_materialize_grads(self, value: bool) -> None:
        self.materialize_grads = bool(value)

    def mark_dirty(self, *tensors) -> None:
        """In-place outputs need version tracking, which the engine does not model."""
        raise UnsupportedError("ctx.mark_dirty (in-place custom Functions) is not supported by Dagscope; "
                               "return a new tensor from forward instead.")


class CustomNode:
    """The grad_fn of a custom Function's output (same protocol as engine.autograd.Node). Each
    Function has its own subclass, named as PyTorch names it (`SquareBackward`), which carries
    the op description and the name: see `node_class`."""

    __slots__ = ("fn_cls", "ctx", "saved", "out_data", "out_ref", "next_functions",
                 "seq", "freed", "_line", "_module", "input_shapes", "arg_positions", "n_args",
                 "__weakref__")
    op: CustomOp | None = None
    name = autograd.NodeName("CustomNode")
    # where the user's code made it, as autograd.Node: set by a hooks.NODE_MADE observer
    line = autograd.Node.line
    module = autograd.Node.module

    def __init__(self, fn_cls, ctx: FunctionCtx, args: tuple, out: Tensor):
        self.fn_cls = fn_cls
        self.ctx = ctx
        self.n_args = len(args)
        positions, saved, shapes, edges = [], [], [], []
        for i, a in enumerate(args):          # one loop: a compiled graph's node has ~10 inputs
            if isinstance(a, Tensor):
                positions.append(i)
                saved.append(a)               # the tensor inputs (graph edges)
                shapes.append(a.array.shape)
                edges.append((autograd.gradient_edge(a), 0))
        self.arg_positions, self.saved = tuple(positions), tuple(saved)
        self.input_shapes, self.next_functions = tuple(shapes), tuple(edges)
        self.out_data = out.array
        self.out_ref = weakref.ref(out)
        self.seq = next(autograd._seq)
        self.freed = False

    def __repr__(self) -> str:
        return f"<torch.autograd.function.{self.name} object>"

    def has_saved_tensors(self) -> bool:
        return bool(self.ctx._saved)

    def release(self) -> None:
        self.freed = True
        self.ctx._freed = True

    def apply(self, builder, grad, create_graph: bool) -> tuple:
        grad_t = grad if isinstance(grad, Tensor) else Tensor(grad)
        result = self.fn_cls.backward(self.ctx, grad_t)
        if not isinstance(result, tuple):
            result = (result,)
        if len(result) != self.n_args:
            # PyTorch tolerates trailing Nones beyond the inputs; anything else is this error.
            extra = result[self.n_args:]
            if len(result) < self.n_args or any(g is not None for g in extra):
                raise RuntimeError(f"function {self.name} returned an incorrect number of gradients "
                                   f"(expected {self.n_args}, got {len(result)})")
        grads = []
        for k, pos in enumerate(self.arg_positions):
            g = result[pos]
            if g is None:
                grads.append(None)
                continue
            if type(g) is np.ndarray and not create_graph and g.shape == self.input_shapes[k] and \
                    g.dtype == self.saved[k].array.dtype:
                grads.append(g)       # the usual array gradient (a compiled backward's), as it is
                g = None              # hold no extra reference: AccumulateGrad may keep it uncopied
                continue
            if isinstance(g, Tensor):
                array = g.array
            else:
                # an array (a compiled graph's backward returns them) is used as it is: wrapping
                # it in a Tensor only to unwrap it costs time and would not change who holds it
                dtype = self.saved[k].array.dtype
                array = g if type(g) is np.ndarray and g.dtype == dtype else np.asarray(g, dtype=dtype)
                g = None
            if not _expandable(self.input_shapes[k], array.shape):
                raise RuntimeError(f"Function {self.name} returned an invalid gradient at index {pos} - "
                                   f"got {list(array.shape)} but expected shape compatible with "
                                   f"{list(self.input_shapes[k])}")
            if create_graph:
                grads.append(g if g is not None else Tensor(array))
            else:
                grads.append(array)
            g = array = None          # hold no extra reference: AccumulateGrad may keep it uncopied
        return tuple(grads)


def node_class(fn_cls) -> type:
    """The CustomNode subclass of Function `fn_cls` (`<Name>Backward`, holding the op description
    the recorder reads), made once per Function class."""
    cls = _NODE_CLASSES.get(fn_cls)
    if cls is None:
        name = fn_cls.__name__
        op = CustomOp(name, f"{name}.forward(ctx, ...) (custom autograd.Function)",
                      f"{name}.backward(ctx, grad) (user-written)")
        cls = _NODE_CLASSES[fn_cls] = type(name + "Backward", (CustomNode,), {
            "__slots__": (), "op": op, "name": autograd.NodeName(name + "Backward"), "__module__": __name__})
    return cls


_NODE_CLASSES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _expandable(shape, target) -> bool:
    """Whether `shape` broadcasts to `target`: then a gradient of shape `target` is summed back down
    to `shape` (run_backward does it), as PyTorch's validate_outputs does."""
    if shape == target:
        return True
    try:
        return tuple(np.broadcast_shapes(shape, target)) == tuple(target)
    except ValueError:
        return False


class Function(metaclass=TorchABCClassRepr):
    """Subclass with static `forward(ctx, *args)` and `backward(ctx, *grads)`; call `.apply(...)`."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Legacy autograd function with non-static forward method is deprecated. Please use "
                           "new-style autograd function with static forward method. (Example: "
                           "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @classmethod
    def apply(cls, *args, **kwargs):
        needs = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        ctx = FunctionCtx(needs)
        with autograd.no_grad():
            if _overrides_setup_context(cls):
                output = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, output)
            else:
                output = cls.forward(ctx, *args, **kwargs)
        if not (autograd.is_grad_enabled() and any(needs)):
            return output
        return _attach_node(cls, ctx, args, output)


def _overrides_setup_context(cls) -> bool:
    for klass in cls.__mro__:
        if klass is Function:
            return False
        if "setup_context" in klass.__dict__:
            return True
    return False


def _attach_node(cls, ctx: FunctionCtx, args: tuple, output):
    """Give the differentiable output its CustomNode (one differentiable output is supported)."""
    outputs = output if isinstance(output, tuple) else (output,)
    arg_ids = {id(a) for a in args}
    fresh = []
    for o in outputs:
        if isinstance(o, Tensor) and id(o) in arg_ids:
            o = Tensor(o.array)        # an input returned as-is: the output is a new tensor over its data
        fresh.append(o)
    differentiable = [i for i, o in enumerate(fresh) if isinstance(o, Tensor)
                      and o.array.dtype.kind == "f" and id(outputs[i]) not in ctx._non_differentiable]
    if len(differentiable) > 1:
        raise UnsupportedError(f"{cls.__name__}.forward returned {len(differentiable)} differentiable tensors; "
                               "Dagscope supports custom Functions with one differentiable output "
                               "(mark the others with ctx.mark_non_differentiable).")
    if differentiable:
        attach_custom_node(cls, ctx, args, fresh[differentiable[0]])
    return tuple(fresh) if isinstance(output, tuple) else fresh[0]


def attach_custom_node(cls, ctx: FunctionCtx, args: tuple, out: Tensor) -> CustomNode:
    """Make `out` (a new Tensor) the differentiable output of Function `cls` applied to `args`:
    its grad_fn runs `cls.backward(ctx, grad)`. Also the direct path of a runner that computes its
    forward itself (engine.codegen.training.AutogradRunner: compiled graphs)."""
    node = node_class(cls)(cls, ctx, args, out)
    if NODE_MADE:                        # the recorder notes where in the user's code it was made
        for observer in NODE_MADE:
            observer(node)
    out._requires_grad = True
    out.grad_fn = node
    return node


def once_differentiable(fn):
    """PyTorch's decorator for backwards that are not themselves differentiable: here a no-op."""
    return fn
