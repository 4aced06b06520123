"""Tensor's in-place ops, and the views that must see them: add_, mul_, copy_, zero_, x[k] = v.

Without a gradient to track they write into the array, so numpy views, like PyTorch's views, see
the change. With one, they run the out-of-place op and the tensor takes on its result and grad_fn
(`_become`); a view passes the change on to its base (CopySlices), and the views taken of a changed
tensor are taken again (AsStridedBackward0), as PyTorch's share their base's memory.
"""
from __future__ import annotations

import weakref

import numpy as np

from engine import autograd, creation
from engine.ops.builder import scalar_dtype
from engine.ops.dtypes import cpp_type_name, scalar_type_name
from engine.ops.registry import OPS
from engine.tensor import Tensor, TensorBuilder, _raise_broadcast_error, _unsupported, apply

_NUMPY_BUILDER = autograd.NUMPY


class InPlaceOps:
    """The in-place half of Tensor: engine.tensor_methods binds these methods onto Tensor (they make
    Tensors and draw random numbers, so they sit above engine.tensor; Tensor keeps the views it has
    lent, `_keep_view`, itself)."""

    def _check_inplace(self) -> None:
        if not (self.requires_grad and autograd._GradMode.enabled):
            return
        if self.grad_fn is None:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
        self._view_node()                     # raises for the views an in-place op cannot change

    def _view_node(self):
        """The node of the view op that made this tensor, when it is a view of a tensor in a graph that
        an in-place op must change too (as PyTorch's views share their base's memory), else None."""
        node = self.grad_fn
        op = getattr(node, "op", None)
        if op is None or not op.view:
            return None
        base = node.saved[0]
        root = base
        while getattr(root.grad_fn, "op", None) is not None and root.grad_fn.op.view:
            root = root.grad_fn.saved[0]
        if root.grad_fn is None and root.requires_grad:
            raise RuntimeError(_VIEW_OF_LEAF_INPLACE)
        base_changed = base._version != node.recorded_version(0)
        if not base_changed and not np.may_share_memory(self.array, base.array):
            return None                       # a reshape that had to copy: not a view, as in PyTorch
        if base_changed or op.name == "expand":
            # the base changed in place after this view was taken (this view's values are its old
            # ones), or several elements of the view are one element of the base
            raise _unsupported(f"an in-place change (here after {op.name}) of a view of a tensor that requires "
                               "grad, when the viewed tensor changed since or the view is expanded; use an "
                               "out-of-place op (e.g. torch.where or .clone() first)")
        return node

    def _alias(self) -> "Tensor":
        """A new Tensor object for this tensor's current value and graph position (the op's input)."""
        t = Tensor(self.array)
        t._requires_grad, t.grad_fn = self._requires_grad, self.grad_fn
        if self.grad_fn is None and self.requires_grad:
            t._accumulator = self._accumulator
        return t

    def _become(self, out: "Tensor", node_name: str | None = None) -> "Tensor":
        """Take on `out`'s value and graph position: the end of an in-place op recorded in the graph.
        A view passes the change on to the tensor it views (PyTorch's CopySlices), and the views
        taken of this tensor see the change (`_refresh_views`)."""
        view_node = self._view_node() if self.grad_fn is not None else None
        old_array = self.array
        self._take(out)
        self._version += 1
        if out.grad_fn is not None:
            out.grad_fn.out_version = self._version      # the node's output is now this tensor
            if node_name:
                out.grad_fn.rename(node_name)
        if view_node is not None:
            self._write_through(view_node)
        self._refresh_views(old_array)
        return self

    def _take(self, out: "Tensor") -> None:
        self.array, self.grad_fn, self._requires_grad = out.array, out.grad_fn, out._requires_grad
        if out.grad_fn is not None:
            out.grad_fn.out_ref = weakref.ref(self)

    def _write_through(self, view_node) -> None:
        """This view changed in place: its base becomes where(viewed, scatter(new view), base) — the
        scatter is the view op's own vjp, exact for a view that picks each base element once — recorded
        as PyTorch's CopySlices; then this tensor is the view of the new base again (AsStridedBackward0).
        The base's other views are taken again by its `_become` (`_refresh_views`)."""
        base, op, attrs = view_node.saved[0], view_node.op, view_node.attrs
        scattered = op.vjp(TensorBuilder(), self, base, self, **attrs)[0]
        viewed = op.vjp(_NUMPY_BUILDER, np.ones(self.array.shape, np.float32), base.array, self.array, **attrs)[0]
        changed = Tensor(np.asarray(viewed) != 0)
        base._become(apply("where", changed, scattered, base._alias()), "CopySlices")
        self._view_again(base, op.name, attrs)

    def _view_again(self, base: "Tensor", op_name: str, attrs: dict) -> None:
        """Become the view `op_name` of `base` as it is now (after an in-place change of `base`)."""
        again = apply(op_name, base, **attrs)
        again.grad_fn.rename("AsStridedBackward0")
        self._take(again)
        base._keep_view(self, op_name, attrs)

    def _refresh_views(self, old_array) -> None:
        """This tensor changed in place to a new array: take again every view of it that still
        looks into the old one (one changed in place since, or a reshape that copied, does not)."""
        views = self._views
        if not views:
            return
        self._views = []
        for ref, op_name, attrs in views:
            view = ref()
            if view is None or not np.may_share_memory(view.array, old_array):
                continue
            view_array = view.array
            if op_name is None:                # detach(): the same values, outside the graph
                view.array = self.array
                self._keep_view(view, None, attrs)
            else:
                view._view_again(self, op_name, attrs)
            view._version += 1
            view._refresh_views(view_array)    # and the views of that view

    def _needs_graph(self, *others) -> bool:
        return autograd._GradMode.enabled and (
            self.requires_grad or any(isinstance(o, Tensor) and o.requires_grad for o in others))

    def _inplace(self, name: str, *others, **attrs) -> "Tensor":
        if self._needs_graph(*others):
            self._check_inplace()
            out = apply(name, self._alias(), *others, **attrs)
            _check_inplace_shape(self.array.shape, out.array.shape)
            if out.array.dtype != self.array.dtype:    # float64 math written into a float32 tensor
                self._check_inplace_dtype(name, out.array.dtype)
                node_name = out.grad_fn.name if out.grad_fn is not None else None
                return self._become(apply("to_dtype", out, dtype=self.array.dtype.name), node_name)
            return self._become(out)
        ufunc = _INPLACE_UFUNCS.get(name)
        if ufunc is not None and not attrs:    # (an optimizer's step: the common case, kept short)
            other = others[0].array if isinstance(others[0], Tensor) else others[0]
            try:
                ufunc(self.array, other, out=self.array, casting="same_kind")
            except TypeError:                  # numpy's same_kind refusal: PyTorch's words for it
                self._check_inplace_dtype(name, OPS[name].run(self.array, *self._operand_arrays(others)).dtype)
                raise
            except ValueError:
                _raise_broadcast_error(self.array.shape, np.shape(other))
                _check_inplace_shape(self.array.shape, np.broadcast_shapes(self.array.shape, np.shape(other)))
                raise
            self._version += 1
            return self
        result = OPS[name].run(self.array, *self._operand_arrays(others), **attrs)
        _check_inplace_shape(self.array.shape, result.shape)
        self._check_inplace_dtype(name, result.dtype)
        self.array[...] = result
        self._version += 1
        return self

    def _operand_arrays(self, others) -> list:
        """The other operands of an in-place op as arrays (Python numbers weakly typed, as PyTorch's)."""
        return [o.array if isinstance(o, Tensor) else np.asarray(o, dtype=scalar_dtype((self.array,), o))
                for o in others]

    def _check_inplace_dtype(self, name: str, result_dtype) -> None:
        """PyTorch refuses to write a result into a tensor of a lower kind (exp_ of an int64 tensor:
        Float into Long); within a kind it casts (float64 math into a float32 tensor)."""
        if name == "masked_fill" or np.can_cast(result_dtype, self.array.dtype, "same_kind"):
            return                             # (masked_fill_ casts its value, as copy_ and fill_ do)
        # clamp_ with number bounds checks in its own kernel, which names the C++ type ("long int")
        scalar_bounds = name in ("clamp", "clamp_min", "clamp_max")
        target = cpp_type_name(self.array.dtype) if scalar_bounds else scalar_type_name(self.array.dtype)
        raise RuntimeError(f"result type {scalar_type_name(result_dtype)} can't be cast to the desired output "
                           f"type {target}")

    def add_(self, other, *, alpha=1):
        return self._inplace("add", other if alpha == 1 else self._scaled(other, alpha))

    def sub_(self, other, *, alpha=1):
        return self._inplace("sub", other if alpha == 1 else self._scaled(other, alpha))

    def _scaled(self, other, alpha):
        """other * alpha for add_/sub_. Without a graph to record (an optimizer step under no_grad)
        it is the bare numpy product, the same one `other * alpha` computes for a float tensor."""
        if (type(other) is Tensor and (type(alpha) is float or type(alpha) is int)
                and other.array.dtype.kind == "f" and not self._needs_graph(other)):
            return np.multiply(other.array, np.asarray(alpha, dtype=other.array.dtype))
        return other * alpha

    def mul_(self, other): return self._inplace("mul", other)
    def div_(self, other): return self._inplace("div", other)
    def pow_(self, exponent): return self._inplace("pow_scalar", exponent=exponent)
    def neg_(self): return self._inplace("neg")
    def exp_(self): return self._inplace("exp")
    def sqrt_(self): return self._inplace("sqrt")

    def reciprocal_(self): return self._inplace("reciprocal")

    def relu_(self): return self._inplace("relu")
    def sigmoid_(self): return self._inplace("sigmoid")
    def tanh_(self): return self._inplace("tanh")
    def masked_fill_(self, mask, value):
        value = value.item() if isinstance(value, Tensor) else value
        return self._inplace("masked_fill", mask, value=value)

    def addcmul_(self, tensor1, tensor2, *, value=1):
        return self.add_(tensor1 * tensor2 * value)

    def addcdiv_(self, tensor1, tensor2, *, value=1):
        return self.add_(tensor1 / tensor2 * value)

    def copy_(self, src, non_blocking: bool = False):
        if self._needs_graph(src):
            self._check_inplace()
            value = src if isinstance(src, Tensor) else Tensor(np.asarray(src))
            if value.array.dtype != self.array.dtype:
                value = apply("to_dtype", value, dtype=self.array.dtype.name)
            if value.array.shape != self.array.shape:
                value = value.expand(*self.array.shape)
            return self._become(apply("clone", value), "CopyBackwards")
        self.array[...] = src.array if isinstance(src, Tensor) else src
        self._version += 1
        return self

    def _fill_raw(self, values, node_name: str) -> "Tensor":
        """zero_/fill_/uniform_/normal_: every element is overwritten, so nothing flows back to
        the old value (on a non-leaf in grad mode: a node that sends it a zero gradient)."""
        self._check_inplace()
        if self.requires_grad and autograd._GradMode.enabled:
            filled = np.empty_like(self.array)
            filled[...] = values
            nothing = Tensor(np.zeros(self.array.shape, dtype=np.bool_))
            return self._become(apply("where", nothing, self._alias(), Tensor(filled)), node_name)
        self.array[...] = values
        self._version += 1
        return self

    def zero_(self): return self._fill_raw(0, "ZeroBackward0")

    def fill_(self, value):
        return self._fill_raw(value.item() if isinstance(value, Tensor) else value, "FillBackward0")

    # Random fills visit the tensor in memory order, as PyTorch's kernels do (a transposed tensor gets
    # its draws in its layout's order; normal values go one at a time unless it is contiguous).
    def uniform_(self, a: float = 0.0, b: float = 1.0, generator=None):
        self._require_float_kernel("check_uniform_bounds")
        dtype = self._draw_dtype()
        draws = creation.draw_in_layout(self.array, lambda shape, _: creation.rng(generator).uniform(
            a, b, shape, dtype=dtype))
        return self._fill_raw(draws, "UniformBackward0")

    def normal_(self, mean: float = 0.0, std: float = 1.0, generator=None):
        self._require_float_kernel("normal_kernel_cpu")
        dtype = self._draw_dtype()
        draws = creation.draw_in_layout(self.array, lambda shape, contiguous: creation.normal_draws(
            creation.rng(generator), mean, std, shape, dtype, contiguous))
        return self._fill_raw(draws, "NormalBackward0")

    def _require_float_kernel(self, kernel: str) -> None:
        """PyTorch's random kernels exist for floating dtypes only: an int tensor is refused."""
        if self.array.dtype.kind != "f":
            raise NotImplementedError(f'"{kernel}" not implemented for \'{scalar_type_name(self.array.dtype)}\'')

    def _draw_dtype(self):
        """Random draws are made in the tensor's precision, as PyTorch's kernels (53-bit for doubles)."""
        return np.float64 if self.array.dtype == np.float64 else np.float32


_VIEW_OF_LEAF_INPLACE = "a view of a leaf Variable that requires grad is being used in an in-place operation."


def _selects_a_view(key) -> bool:
    """Whether indexing with `key` gives a proper view (ints, slices, None; not all of the tensor, not
    an advanced index that copies), as PyTorch's p[key] = v then writes through one."""
    parts = key if type(key) is tuple else (key,)
    if not all(type(k) in (int, slice) or k is None or k is Ellipsis for k in parts):
        return False
    return not all(k is Ellipsis or (type(k) is slice and k == slice(None)) for k in parts)


_INPLACE_UFUNCS = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide}


def _check_inplace_shape(shape: tuple, result_shape: tuple) -> None:
    """An in-place op writes into its tensor: a result broadcast to a larger shape is an error."""
    if tuple(result_shape) != tuple(shape):
        raise RuntimeError(f"output with shape {list(shape)} doesn't match the broadcast shape {list(result_shape)}")
