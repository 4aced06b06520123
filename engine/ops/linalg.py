"""Matrix products: matmul (1-D, 2-D, batched, broadcast) and addmm (what nn.Linear records)."""
from __future__ import annotations

import numpy as np

from engine.errors import UnsupportedError
from engine.ops.dtypes import CPP_TYPE_NAMES, SCALAR_TYPE_NAMES, promote
from engine.ops.elementwise import dtype_name
from engine.ops.registry import MATMUL, OpDef, Spec, register


def _matmul_shape(a: tuple, b: tuple, a_strides=None, b_strides=None, fn=None) -> tuple:
    """The shape of a @ b, or PyTorch's error for the product its matmul would have attempted
    (see _size_error). Strides are in elements; without them the operands count as contiguous."""
    a, b = tuple(a), tuple(b)
    if not a or not b:
        raise RuntimeError("both arguments to matmul need to be at least 1D, but they are "
                           f"{len(a)}D and {len(b)}D")
    a2 = (1,) + a if len(a) == 1 else a
    b2 = b + (1,) if len(b) == 1 else b
    batch = _broadcast_batch(a2[:-2], b2[:-2]) if fn != "bmm" else a2[:-2]
    if a2[-1] != b2[-2] or (fn == "bmm" and a[0] != b[0]):
        raise RuntimeError(_size_error(a, b, a_strides or _contiguous_strides(a),
                                       b_strides or _contiguous_strides(b), fn))
    out = batch + (a2[-2], b2[-1])
    if len(a) == 1:
        out = out[:-2] + out[-1:]
    if len(b) == 1:
        out = out[:-1]
    return out


def _broadcast_batch(a: tuple, b: tuple) -> tuple:
    out = []
    for i in range(max(len(a), len(b))):
        x = a[len(a) - 1 - i] if i < len(a) else 1
        y = b[len(b) - 1 - i] if i < len(b) else 1
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b ({y}) at "
                               f"non-singleton dimension {max(len(a), len(b)) - 1 - i}")
        out.append(y if x == 1 else x)
    return tuple(reversed(out))


def _contiguous_strides(shape: tuple) -> tuple:
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= size
    return tuple(reversed(strides))


def _mm_error(rows, inner, inner2, cols) -> str:
    return f"mat1 and mat2 shapes cannot be multiplied ({rows}x{inner} and {inner2}x{cols})"


def _folds(a: tuple, b: tuple, a_strides, b_strides) -> bool:
    """at::native's should_fold for operands that do not require grad: a batch of matrices against
    a matrix or vector is one mm/mv when the batch dims fold without a copy (the grad case folds
    always, so 2-D @ N-D with a 2-D operand that requires grad is named differently there)."""
    if len(a) >= len(b):
        t1_shape, t1_strides, small = a, a_strides, len(b)
    else:                                          # b.mT is the larger operand
        t1_shape = b[:-2] + (b[-1], b[-2])
        t1_strides = b_strides[:-2] + (b_strides[-1], b_strides[-2])
        small = len(a)
    if not (len(t1_shape) >= 3 and small <= 2) or len(a) == 2:
        return False
    if 0 in t1_shape:
        return True
    return all(t1_strides[i] == t1_strides[i + 1] * t1_shape[i + 1] for i in range(len(t1_shape) - 2))


def _size_error(a: tuple, b: tuple, a_strides, b_strides, fn) -> str:
    """PyTorch 2.13's words for a @ b whose inner sizes differ, from the op its matmul calls."""
    na, nb = len(a), len(b)
    if na == nb == 1:
        return (f"inconsistent tensor size, expected tensor [{a[0]}] and src [{b[0]}] to have the same number "
                f"of elements, but got {a[0]} and {b[0]} elements respectively")
    if (na, nb) == (2, 1):
        return f"size mismatch, got input ({a[0]}), mat ({a[0]}x{a[1]}), vec ({b[0]})"
    if na <= 2 and nb <= 2:
        return _mm_error(1 if na == 1 else a[0], a[-1], b[0], b[1])
    if fn != "bmm" and _folds(a, b, a_strides, b_strides):
        t1, t2 = (a, b) if na >= nb else (b[:-2] + (b[-1], b[-2]), a)
        rows = int(np.prod(t1[:-1], dtype=np.int64))
        if len(t2) == 1:
            return f"size mismatch, got input ({rows}), mat ({rows}x{t1[-1]}), vec ({t2[0]})"
        return _mm_error(rows, t1[-1], t2[0], t2[1])
    if fn == "bmm":
        products, expected_inner, got = a[0], a[-1], b[:2]
    else:
        a2 = (1,) + a if na == 1 else a
        b2 = b + (1,) if nb == 1 else b
        products = int(np.prod(_broadcast_batch(a2[:-2], b2[:-2]), dtype=np.int64))
        expected_inner, got = a2[-1], (products, b2[-2])
    return (f"Expected size for first two dimensions of batch2 tensor to be: [{products}, {expected_inner}] "
            f"but got: [{got[0]}, {got[1]}].")


def _dtype_error(a: tuple, b: tuple, a_dtype, b_dtype, a_strides, b_strides, fn) -> str:
    """PyTorch 2.13's refusal of operands of two dtypes, in the words of the product it attempts."""
    names = dtype_name(a_dtype), dtype_name(b_dtype)
    big, small = (SCALAR_TYPE_NAMES.get(n, n) for n in names), (CPP_TYPE_NAMES.get(n, n) for n in names)
    (a_big, b_big), (a_small, b_small) = tuple(big), tuple(small)
    na, nb = len(a), len(b)
    if na == nb == 1:
        return f"dot : expected both vectors to have same dtype, but found {a_big} and {b_big}"
    mv = f"addmv input tensors must have the same dtype, but got {{vec}}, {{mat}}, and {{vec}}"   # out made like vec
    mm = f"expected m1 and m2 to have the same dtype, but got: {a_small} != {b_small}"
    if na <= 2 and nb <= 2:
        return mv.format(mat=a_big, vec=b_big) if (na, nb) == (2, 1) else mm
    if fn != "bmm" and _folds(a, b, a_strides, b_strides):
        if 1 in (na, nb):
            return mv.format(mat=a_big, vec=b_big) if nb == 1 else mv.format(mat=b_big, vec=a_big)
        return mm
    return f"expected scalar type {a_big} but found {b_big}"          # bmm


def _matmul_check(a, b, fn=None) -> tuple:
    """The shape of a @ b for arrays a and b, or PyTorch's error, in its order: the dtypes of two vectors,
    then sizes, then the dtypes of the rest."""
    a_strides = tuple(s // a.itemsize for s in a.strides)
    b_strides = tuple(s // b.itemsize for s in b.strides)
    if a.dtype != b.dtype and a.ndim == b.ndim == 1:
        raise RuntimeError(_dtype_error(a.shape, b.shape, a.dtype, b.dtype, a_strides, b_strides, fn))
    shape = _matmul_shape(a.shape, b.shape, a_strides, b_strides, fn)
    if a.dtype != b.dtype:
        raise RuntimeError(_dtype_error(a.shape, b.shape, a.dtype, b.dtype, a_strides, b_strides, fn))
    return shape


def _matmul_infer(a, b, fn=None) -> Spec:
    if a.dtype != b.dtype and len(a.shape) == len(b.shape) == 1:
        raise RuntimeError(_dtype_error(tuple(a.shape), tuple(b.shape), a.dtype, b.dtype, None, None, fn))
    shape = _matmul_shape(a.shape, b.shape, fn=fn)
    if a.dtype != b.dtype:
        a_shape, b_shape = tuple(a.shape), tuple(b.shape)
        raise RuntimeError(_dtype_error(a_shape, b_shape, a.dtype, b.dtype, _contiguous_strides(a_shape),
                                        _contiguous_strides(b_shape), fn))
    return Spec(shape, np.dtype(a.dtype))


def _matching_dtype(F, g, out):
    """The gradient of `out` in out's dtype. A gradient may arrive in a wider dtype (out * a float64
    tensor is float64); PyTorch's engine casts it to out's dtype before the node's backward runs, and
    matmul, which refuses mixed dtypes, needs that too."""
    return g if dtype_name(g) == dtype_name(out) else F.to_dtype(g, dtype=dtype_name(out))


def _matmul_forward(a, b, fn=None):
    if a.ndim == 2 and b.ndim == 2 and a.shape[1] == b.shape[0] and a.dtype is b.dtype:
        return np.matmul(a, b)        # the common case, without the general shape and dtype checks
    _matmul_check(a, b, fn)            # PyTorch's errors rather than numpy's (and no dtype promotion)
    return np.matmul(a, b)


def _matmul_vjp_masked(F, needs, g, a, b, out, fn=None):
    g = _matching_dtype(F, g, out)
    if len(a.shape) == 1 and len(b.shape) == 1:       # dot product: out is a scalar
        return (F.mul(g, b) if needs[0] else None), (F.mul(g, a) if needs[1] else None)
    if len(a.shape) == 2 and len(b.shape) == 1:       # mv, as PyTorch's backward: grad.ger(vec), mat.t().mv(grad)
        ga = F.mul(F.reshape(g, shape=(a.shape[0], 1)), b) if needs[0] else None     # the outer product
        gb = F.matmul(F.transpose(a, dim0=0, dim1=1, fn="t"), g) if needs[1] else None
        return ga, gb
    a2 = F.reshape(a, shape=(1,) + tuple(a.shape)) if len(a.shape) == 1 else a
    b2 = F.reshape(b, shape=tuple(b.shape) + (1,)) if len(b.shape) == 1 else b
    g2 = g
    if len(a.shape) == 1:
        g2 = F.reshape(g2, shape=tuple(g2.shape[:-1]) + (1, g2.shape[-1]))
    if len(b.shape) == 1:
        g2 = F.reshape(g2, shape=tuple(g2.shape) + (1,))
    ga = gb = None
    # The products PyTorch's backward runs: mm with .t() for matrices (mm_mat1_backward), bmm with
    # .transpose(1, 2) for batches of one size; they name the nodes a create_graph backward records.
    t_fn = "t" if len(a2.shape) == len(b2.shape) == 2 else "transpose"
    batched = len(g2.shape) == len(a2.shape) == len(b2.shape) == 3 and a2.shape[0] == b2.shape[0]
    mm_fn = {"fn": "bmm"} if batched else {}        # (no fn attr otherwise: IR graphs print their attrs)
    if needs[0]:
        ga = F.matmul(g2, F.transpose(b2, dim0=-1, dim1=-2, fn=t_fn), **mm_fn)
        ga = F.sum_to_size(ga, shape=tuple(a2.shape)) if tuple(ga.shape) != tuple(a2.shape) else ga
        ga = F.reshape(ga, shape=tuple(a.shape)) if len(a.shape) == 1 else ga
    if needs[1]:
        gb = F.matmul(F.transpose(a2, dim0=-1, dim1=-2, fn=t_fn), g2, **mm_fn)
        gb = F.sum_to_size(gb, shape=tuple(b2.shape)) if tuple(gb.shape) != tuple(b2.shape) else gb
        gb = F.reshape(gb, shape=tuple(b.shape)) if len(b.shape) == 1 else gb
    return ga, gb


def _matmul_vjp(F, g, a, b, out, fn=None):
    return _matmul_vjp_masked(F, (True, True), g, a, b, out)


def _requires_grad(x) -> bool:
    # An IR value (a Spec) carries no requires_grad: name it as if the gradient were wanted.
    return getattr(x, "requires_grad", True)


def _matmul_name(a, b, fn=None) -> str:
    """The node PyTorch 2.13's matmul ends in (at::native::_matmul_impl): dot, mv, mm, an in-place
    squeeze for 1-D @ 2-D, and for batched operands the view that unfolds the bmm (or the folded mm)
    result, except that 2-D @ N-D with a 2-D operand wanting a gradient is computed as (B^T A^T)^T and
    made contiguous: a clone, or only the transpose when the result has a size-1 matrix dim.
    torch.bmm is this op too and says so through `fn` (BmmBackward0; `@` of the same operands records
    UnsafeViewBackward0)."""
    na, nb = len(a.shape), len(b.shape)
    if fn == "bmm":
        return "BmmBackward0"
    if na <= 2 and nb <= 2:
        return _MATRIX_NAMES[na, nb]
    if na == 2 and _requires_grad(a):        # should_fold with the smaller operand on the left
        rows, cols = a.shape[0], b.shape[-1]
        return "TransposeBackward0" if rows == 1 or cols == 1 else "CloneBackward0"
    if na == 3 and nb == 3 and a.shape[0] != b.shape[0]:
        # A batch of one that wants a gradient is squeezed and multiplied as a matrix.
        if a.shape[0] == 1 and _requires_grad(a):
            return _matmul_name(Spec(tuple(a.shape[1:]), a.dtype), b, fn="matmul")
    return "UnsafeViewBackward0"


_MATRIX_NAMES = {(1, 1): "DotBackward0", (2, 1): "MvBackward0", (1, 2): "SqueezeBackward4", (2, 2): "MmBackward0"}


register(OpDef(
    "matmul", MATMUL, _matmul_forward,
    _matmul_infer,
    _matmul_vjp, _matmul_name, "a @ b", "grad_a = grad @ b^T; grad_b = a^T @ grad", attrs=("fn",), saves=(0, 1),
    saves_for={0: (1,), 1: (0,)}, vjp_masked=_matmul_vjp_masked, writes_out=True))


def _addmm_check(bias, a, b) -> tuple:
    """The shape of bias + a @ b, or PyTorch's error: dtypes first (bias against b, then a against b)."""
    for first, dtype, which in ((bias, bias.dtype, "self"), (a, a.dtype, "mat1")):
        if dtype != b.dtype:
            names = (SCALAR_TYPE_NAMES.get(dtype_name(d), dtype_name(d)) for d in (dtype, b.dtype))
            raise RuntimeError(f"{which} and mat2 must have the same dtype, but got {' and '.join(names)}")
    return _matmul_shape(tuple(a.shape), tuple(b.shape))


def _addmm_forward(bias, a, b):
    if a.dtype is not b.dtype or bias.dtype is not b.dtype or a.shape[-1] != b.shape[0]:
        _addmm_check(bias, a, b)
    out = np.matmul(a, b)
    out += bias
    return out


def _is_transposed_view(x) -> bool:
    return isinstance(x, np.ndarray) and x.ndim == 2 and x.flags.f_contiguous and not x.flags.c_contiguous


def _addmm_vjp_masked(F, needs, g, bias, a, b, out):
    g = _matching_dtype(F, g, out)
    grad_b = None
    if needs[2]:
        if _is_transposed_view(b):
            # b is nn.Linear's W^T: compute (g^T a)^T, so that the gradient reaching W (through
            # TBackward0) is laid out like W and accumulating it into W.grad is a plain copy.
            grad_b = F.transpose(F.matmul(F.transpose(g, dim0=0, dim1=1, fn="t"), a), dim0=0, dim1=1, fn="t")
        else:
            grad_b = F.matmul(F.transpose(a, dim0=0, dim1=1, fn="t"), g)
    return (g if needs[0] else None,
            F.matmul(g, F.transpose(b, dim0=0, dim1=1, fn="t")) if needs[1] else None,
            grad_b)


def _addmm_numpy_vjp(needs, g, bias, a, b, out):
    """_addmm_vjp_masked on 2-D arrays, in the numpy calls its builder ops make (transpose is
    swapaxes, matmul is _matmul_forward), without the builder's dispatch."""
    if not (type(g) is np.ndarray and type(a) is np.ndarray and type(b) is np.ndarray and g.ndim == 2
            and g.dtype is out.dtype):
        return None
    grad_b = None
    if needs[2]:
        if _is_transposed_view(b):
            grad_b = _matmul_forward(g.swapaxes(0, 1), a).swapaxes(0, 1)
        else:
            grad_b = _matmul_forward(a.swapaxes(0, 1), g)
    return (g if needs[0] else None, _matmul_forward(g, b.swapaxes(0, 1)) if needs[1] else None, grad_b)


register(OpDef(
    "addmm", MATMUL, _addmm_forward,
    lambda bias, a, b: Spec(_addmm_check(bias, a, b), np.dtype(b.dtype)),
    lambda F, g, bias, a, b, out: _addmm_vjp_masked(F, (True, True, True), g, bias, a, b, out),
    "AddmmBackward0", "bias + a @ b", "grad_bias = sum of grad over rows; grad_a = grad @ b^T; grad_b = a^T @ grad",
    saves=(1, 2), saves_for={1: (2,), 2: (1,)}, vjp_masked=_addmm_vjp_masked, numpy_vjp=_addmm_numpy_vjp,
    writes_out=True))


# ---- einsum ---------------------------------------------------------------------------------------

def parse_einsum(equation: str, n_operands: int) -> tuple[list[str], str]:
    """Input subscripts and output subscripts of an explicit or implicit equation ('ij,jk' -> 'ik')."""
    eq = equation.replace(" ", "")
    if "." in eq:
        raise UnsupportedError("einsum with '...' is not supported by Dagscope")
    lhs, _, out = eq.partition("->")
    subs = lhs.split(",")
    if len(subs) != n_operands:
        raise RuntimeError(f"einsum(): {len(subs)} subscripts given for {n_operands} operands")
    if "->" not in eq:
        letters = "".join(subs)
        out = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    for s in subs:
        if len(set(s)) != len(s):
            raise UnsupportedError("einsum with a repeated subscript in one operand (a diagonal) is not "
                                   "supported by Dagscope")
    return subs, out


def _einsum_sizes(shapes, subs) -> dict:
    sizes: dict = {}
    for shape, s in zip(shapes, subs):
        if len(shape) != len(s):
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(s)}) does not match the "
                               f"number of dimensions ({len(shape)}) for operand")
        for c, n in zip(s, shape):
            if sizes.setdefault(c, n) != n:
                raise RuntimeError(f"einsum(): operands do not broadcast with remapped shapes (subscript {c!r} "
                                   f"has sizes {sizes[c]} and {n})")
    return sizes


def _einsum_infer(*xs, equation):
    subs, out = parse_einsum(equation, len(xs))
    sizes = _einsum_sizes([tuple(x.shape) for x in xs], subs)
    return Spec(tuple(sizes[c] for c in out), promote(*(x.dtype for x in xs)))


def _einsum_forward(*xs, equation):
    subs, out = parse_einsum(equation, len(xs))
    dt = promote(*(x.dtype for x in xs))
    return np.einsum(f"{','.join(subs)}->{out}", *(x.astype(dt, copy=False) for x in xs), optimize=len(xs) > 2)


def _einsum_vjp(F, g, *inputs_and_out, equation):
    xs = inputs_and_out[:-1]
    subs, out = parse_einsum(equation, len(xs))
    grads = []
    for i, target in enumerate(subs):
        sources = [out] + [s for j, s in enumerate(subs) if j != i]
        present = set("".join(sources))
        kept = "".join(c for c in target if c in present)     # letters only x_i had were summed: re-expand
        grad = F.einsum(g, *(x for j, x in enumerate(xs) if j != i), equation=f"{','.join(sources)}->{kept}")
        if kept != target:
            shape = tuple(x_dim if c in present else 1 for c, x_dim in zip(target, xs[i].shape))
            grad = F.expand(F.reshape(grad, shape=shape), shape=tuple(xs[i].shape))
        grads.append(grad)
    return tuple(grads)


def _einsum_name(*xs, equation) -> str:
    """The node PyTorch's einsum ends in: it has no node of its own but permutes, sums and multiplies.
    One operand: a sum over the dropped letters, else a permute; several: a product, contracted by
    bmm and viewed back to the output whenever some letter is summed away."""
    subs, out = parse_einsum(equation, len(xs))
    dropped = set("".join(subs)) - set(out)
    if len(xs) == 1:
        return "SumBackward1" if dropped else "PermuteBackward0"
    return "ViewBackward0" if dropped else "MulBackward0"


register(OpDef(
    "einsum", MATMUL, _einsum_forward, _einsum_infer, _einsum_vjp, _einsum_name,
    "sum over the repeated subscripts of the product of the operands",
    "grad_i = einsum(grad with the other operands) onto operand i's subscripts", attrs=("equation",)))
