"""Tensor creation: tensor, zeros, ones, full, arange, randn... with PyTorch's default dtypes."""
from __future__ import annotations

import os
import sys
import warnings

import numpy as np

from engine.compat.torch_dtypes import to_numpy
from engine.ops.dtypes import DEFAULT_FLOAT, promote
from engine.random_pytorch import Generator, default_generator
from engine.tensor import Tensor


def manual_seed(seed: int) -> Generator:
    """torch.manual_seed: reseed the default generator (PyTorch's Mersenne Twister, so the numbers
    drawn afterwards are PyTorch's)."""
    return default_generator.manual_seed(seed)


def rng(generator: Generator | None = None) -> Generator:
    """The generator a draw uses: the one passed as `generator=`, else the default one."""
    return default_generator if generator is None else generator


# ---- drawing into a tensor's memory layout ----
# PyTorch's in-place random kernels (uniform_, normal_, random_) visit a tensor in memory order, and
# *_like tensors of a dense input share its layout; normal_ uses its 16-value Box-Muller blocks only on a
# contiguous tensor, else one double normal at a time. A transposed tensor thus gets other draws than a
# contiguous one of its shape.

def layout_axes(arr: np.ndarray) -> tuple:
    """The axes of `arr` from the outermost to the innermost in memory (size-1 axes anywhere)."""
    return tuple(sorted(range(arr.ndim), key=lambda a: -abs(arr.strides[a])))


def is_dense(arr: np.ndarray) -> bool:
    """Non-overlapping and dense (a permutation of a contiguous block), as PyTorch's empty_like asks."""
    return arr.transpose(layout_axes(arr)).flags.c_contiguous


def normal_draws(generator: Generator, mean: float, std: float, shape: tuple, dtype, contiguous: bool, into=None):
    """normal_ into a tensor of `shape` (in its visiting order): Box-Muller blocks when contiguous, else
    PyTorch's serial path, drawn here in runs shorter than a block (the generator keeps the spare value).
    `into`: the tensor's storage, which the generator may fill and return (Generator.normal)."""
    if contiguous:
        return generator.normal(mean, std, shape, dtype, into)
    n = int(np.prod(shape, dtype=np.int64))
    runs = [generator.normal(mean, std, (min(15, n - i),), dtype) for i in range(0, n, 15)]
    return (np.concatenate(runs) if runs else np.zeros(0, dtype)).reshape(shape)


def draw_in_layout(like: np.ndarray, draw) -> np.ndarray:
    """draw(shape, contiguous) -> values for an array shaped and laid out like `like` (dense), returned
    in `like`'s logical order and layout."""
    axes = layout_axes(like)
    drawn = draw(tuple(like.shape[a] for a in axes), like.flags.c_contiguous)
    return drawn.transpose(np.argsort(axes))


def _like_draw(t: Tensor, draw) -> np.ndarray:
    """A *_like tensor's values: in the input's layout when it is dense (PyTorch's empty_like keeps it),
    else contiguous."""
    if is_dense(t.array):
        return draw_in_layout(t.array, draw)
    return draw(t.array.shape, True)


def _random_dtype(dtype) -> np.dtype:
    """The dtype a random float tensor is drawn in (float16 is drawn as float32, then rounded)."""
    target = np.dtype(_np_dtype(dtype, DEFAULT_FLOAT))
    if target.kind != "f":
        raise NotImplementedError(f'"check_uniform_bounds" not implemented for '
                                  f"'{_TORCH_NAMES.get(target.name, target.name)}'")
    return target


_TORCH_NAMES = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}


def _np_dtype(dtype, default=None):
    if dtype is None:
        return default
    return to_numpy(dtype)


def _infer_dtype(arr: np.ndarray) -> np.dtype:
    if arr.dtype.kind == "f":
        return DEFAULT_FLOAT
    if arr.dtype.kind in "iu":
        return np.dtype(np.int64)
    if arr.dtype.kind == "b":
        return np.dtype(np.bool_)
    raise TypeError(f"can't convert values of type {arr.dtype} to a tensor")


def _unwrap(data, nested: bool = False):
    """Tensors to arrays. Inside a list PyTorch takes a tensor as a number: it must have one element."""
    if isinstance(data, Tensor):
        if not nested:
            return data.array
        if data.array.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return data.array.reshape(())
    if isinstance(data, (list, tuple)):
        if _PLAIN_NUMBERS.issuperset(map(type, data)):
            return data         # the common case, a list of Python numbers: nothing to unwrap
        return [_unwrap(d, True) for d in data]
    return data


_PLAIN_NUMBERS = frozenset((float, int, bool))
_PLAIN_DTYPES = {frozenset((bool,)): np.dtype(np.bool_), frozenset((int,)): np.dtype(np.int64),
                 frozenset((int, bool)): np.dtype(np.int64)}


def _is_sequence(x) -> bool:
    return isinstance(x, (list, tuple)) or (isinstance(x, np.ndarray) and x.ndim > 0)


def _raise_unconvertible(data, unwrapped):
    """PyTorch's error for data numpy could not make a numeric array of: lists of unequal lengths
    (checked depth first, as PyTorch walks them), a sequence where a number belongs, other objects."""
    sizes, probe = [], unwrapped
    while _is_sequence(probe):
        sizes.append(len(probe))
        if not len(probe):
            break
        probe = probe[0]

    def check(seq, dim):
        if len(seq) != sizes[dim]:
            raise ValueError(f"expected sequence of length {sizes[dim]} at dim {dim} (got {len(seq)})")
        for item in seq:
            if dim + 1 < len(sizes):
                if not _is_sequence(item):
                    raise TypeError("not a sequence")
                check(item, dim + 1)
            elif _is_sequence(item):
                raise TypeError(f"must be real number, not {type(item).__name__}")

    if sizes:
        check(unwrapped, 0)
    leaves = [data]
    while leaves and isinstance(leaves[0], (list, tuple)):
        leaves = [leaf for seq in leaves for leaf in seq]
    odd = next((leaf for leaf in leaves if not isinstance(leaf, (int, float, np.generic, np.ndarray, Tensor))), None)
    if isinstance(odd, str):
        if odd is data or any(not isinstance(x, str) for x in leaves):
            raise TypeError("new(): invalid data type 'str'")
        raise ValueError("too many dimensions 'str'")
    raise RuntimeError(f"Could not infer dtype of {type(odd).__name__}")


def _data_dtype(data):
    """The dtype torch.tensor infers for `data`, or None where numpy's own inference is right.
    PyTorch promotes the dtypes of all the elements, a Python float counting as float32, a Python
    int as int64, while a numpy scalar, array or tensor keeps its own dtype: so
    torch.tensor([np.float64(1.5), 2.0]) and torch.tensor([t64, t32]) are float64."""
    if isinstance(data, Tensor):
        return data.array.dtype
    if isinstance(data, (np.ndarray, np.generic)):
        return data.dtype if data.dtype.kind in "biuf" else None
    if isinstance(data, (list, tuple)):
        kinds = frozenset(map(type, data))
        if kinds and _PLAIN_NUMBERS.issuperset(kinds):     # Python numbers only: no per-element work
            return _PLAIN_DTYPES.get(kinds, DEFAULT_FLOAT)
        found = [d for d in map(_data_dtype, data) if d is not None]
        return promote(*found) if found else None
    if isinstance(data, bool):
        return np.dtype(np.bool_)
    if isinstance(data, int):
        return np.dtype(np.int64)
    if isinstance(data, float):
        return DEFAULT_FLOAT
    return None


_ENGINE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_COPY_CONSTRUCT = ("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
                   "sourceTensor.detach().clone().requires_grad_(True), rather than {call}(sourceTensor).")


def _stacklevel_outside_engine() -> int:
    """The warnings.warn stacklevel (counted from the caller of this function) of the innermost
    frame outside the engine package: the user's line, as PyTorch's C++ warning names the Python
    line that called it. Python's once-per-location registry then counts that line, so the same
    call in a loop warns once and two calls on two lines warn twice, as with PyTorch."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(_ENGINE_DIR):
        frame, level = frame.f_back, level + 1
    return level if frame is not None else 1


def _warn_copy_construct() -> None:
    """PyTorch's UserWarning for torch.tensor(t) (or t.new_tensor(s)) of a tensor: it copies and
    detaches, which `detach().clone()` says plainly."""
    # two frames up: past tensor() to whoever called it (Tensor.new_tensor words the warning its way)
    via_new_tensor = sys._getframe(2).f_code is Tensor.new_tensor.__code__
    call = "tensor.new_tensor" if via_new_tensor else "torch.tensor"
    warnings.warn(_COPY_CONSTRUCT.format(call=call), UserWarning, stacklevel=_stacklevel_outside_engine())


def tensor(data, dtype=None, requires_grad: bool = False, device=None) -> Tensor:
    if isinstance(data, Tensor):
        _warn_copy_construct()
    return _tensor(data, dtype, requires_grad)


def _tensor(data, dtype=None, requires_grad: bool = False) -> Tensor:
    """torch.tensor without its copy-construct warning (as_tensor converting a tensor's dtype)."""
    unwrapped = _unwrap(data)
    try:
        arr = np.asarray(unwrapped)
    except ValueError:          # numpy's "inhomogeneous shape"
        _raise_unconvertible(data, unwrapped)
        raise
    if arr.dtype.kind not in "biuf":
        _raise_unconvertible(data, unwrapped)
    if dtype is not None:
        target = _np_dtype(dtype)
    elif isinstance(data, np.ndarray):
        target = arr.dtype
    else:
        target = _data_dtype(data)
        if target is None:
            target = _infer_dtype(arr)
    return _make(np.array(arr, dtype=target, copy=True), requires_grad)


def _sized(shape, size=None, name: str = "empty") -> tuple:
    """The shape a factory was given (zeros(2, 3), zeros((2, 3)), zeros(size=...)), checked with
    PyTorch's words: whole numbers only, none negative."""
    if size is not None:
        shape = (size,)
    packed = len(shape) == 1 and isinstance(shape[0], (tuple, list))
    if packed:
        shape = shape[0]
    for pos, dim in enumerate(shape):
        if isinstance(dim, (float, np.floating)):
            if not packed and len(shape) == 1:
                raise TypeError(f"{name}(): argument 'size' (position 1) must be tuple of ints, not float")
            if pos == 0:
                raise TypeError(f"{name}(): argument 'size' (position 1) must be tuple of ints, but found "
                                f"element of type float at pos 0")
            raise TypeError(f"{name}(): argument 'size' failed to unpack the object at pos {pos + 1} with error "
                            f'"type must be tuple of ints,but got float"')
    dims = tuple(int(s) for s in shape)
    negative = [d for d in dims if d < 0]
    if negative:
        if name == "zeros":
            raise RuntimeError("zeros: Dimension size must be non-negative.")
        raise RuntimeError(f"Trying to create tensor with negative dimension {negative[0]}: {list(dims)}")
    return dims


def _make(arr, requires_grad) -> Tensor:
    t = Tensor(arr)
    if requires_grad:
        if t.array.dtype.kind != "f":
            # A factory's own wording in PyTorch (requires_grad_() words it differently).
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        t.requires_grad_(True)
    return t


def zeros(*shape, size=None, dtype=None, requires_grad=False, device=None) -> Tensor:
    return _make(np.zeros(_sized(shape, size, "zeros"), _np_dtype(dtype, DEFAULT_FLOAT)), requires_grad)


def ones(*shape, size=None, dtype=None, requires_grad=False, device=None) -> Tensor:
    return _make(np.ones(_sized(shape, size, "ones"), _np_dtype(dtype, DEFAULT_FLOAT)), requires_grad)


def full(shape, fill_value, dtype=None, requires_grad=False, device=None) -> Tensor:
    if isinstance(fill_value, Tensor):        # a 0-d tensor fills as its Python number
        fill_value = fill_value.item()
    default = DEFAULT_FLOAT if isinstance(fill_value, float) else (
        np.dtype(np.bool_) if isinstance(fill_value, bool) else np.dtype(np.int64))
    return _make(np.full(_sized((shape,), name="full"), fill_value, _np_dtype(dtype, default)), requires_grad)


def randn(*shape, size=None, dtype=None, requires_grad=False, device=None, generator=None) -> Tensor:
    target = _random_dtype(dtype)
    values = rng(generator).standard_normal(_sized(shape, size, "randn"), target)
    return _make(values.astype(target), requires_grad)


def rand(*shape, size=None, dtype=None, requires_grad=False, device=None, generator=None) -> Tensor:
    target = _random_dtype(dtype)
    return _make(rng(generator).random(_sized(shape, size, "rand"), target).astype(target), requires_grad)


def randint(low, high=None, size=None, dtype=None, device=None, generator=None, requires_grad=False) -> Tensor:
    if size is None and isinstance(high, (tuple, list)):      # randint(high, size)
        low, high, size = 0, low, high
    elif high is None:
        low, high = 0, low
    if size is None:
        raise TypeError("randint() missing required argument 'size'")
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    values = rng(generator).integers(low, high, _sized((size,), name="randint"))
    return _make(values.astype(_np_dtype(dtype, np.int64)), requires_grad)


def randperm(n: int, dtype=None, device=None, generator=None, requires_grad=False) -> Tensor:
    return _make(rng(generator).permutation(int(n)).astype(_np_dtype(dtype, np.int64)), requires_grad)


def normal(mean=0.0, std=1.0, size=None, generator=None, dtype=None, requires_grad=False) -> Tensor:
    """torch.normal: float mean and std with a `size`, or tensor means/stds (broadcast), drawn as
    PyTorch draws them (standard normals scaled by std, plus mean, for tensor arguments)."""
    m = mean.array if isinstance(mean, Tensor) else mean
    s = std.array if isinstance(std, Tensor) else std
    if size is not None or not (isinstance(m, np.ndarray) or isinstance(s, np.ndarray)):
        target = _random_dtype(dtype)
        shape = _sized((size,), name="normal") if size is not None else ()
        return _make(rng(generator).normal(m, s, shape, target).astype(target), requires_grad)
    shape = np.broadcast_shapes(np.shape(m), np.shape(s))
    target = np.dtype(m.dtype if isinstance(m, np.ndarray) else s.dtype)
    draws = rng(generator).standard_normal(shape, target)
    return _make((draws * s + m).astype(target), requires_grad)


def arange(start, end=None, step=1, dtype=None, requires_grad=False, device=None) -> Tensor:
    if end is None:
        start, end = 0, start
    start, end, step = (v.item() if isinstance(v, Tensor) else v for v in (start, end, step))
    is_float = any(isinstance(v, float) for v in (start, end, step))
    out_dtype = np.dtype(_np_dtype(dtype, DEFAULT_FLOAT if is_float else np.int64))
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) / step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if is_float and out_dtype.kind != "f":
        # An integer range: PyTorch truncates the bounds and the step to integers first.
        start, end, step = int(start), int(end), int(step)
        if step == 0:
            raise ValueError("step must be nonzero")
    values = np.arange(start, end, step)
    if out_dtype in _VECTOR_LANES and values.dtype.kind == "f":
        return _make(_arange_as_pytorch(float(start), float(step), len(values), out_dtype), requires_grad)
    return _make(values.astype(out_dtype), requires_grad)


# PyTorch fills float ranges with its CPU kernels' own rounding, and printing shows it: in PyTorch
# torch.arange(-1, 1, 0.1)[10] is -2.9802e-09, not 0, so that tensor prints in scientific notation.
# The kernels' vector loops work in AVX2 registers (PyTorch's usual CPU capability): 8 floats, 4 doubles.
_VECTOR_LANES = {np.dtype(np.float32): 8, np.dtype(np.float64): 4}


def _arange_as_pytorch(start: float, step: float, n: int, dtype: np.dtype) -> np.ndarray:
    """torch's arange_kernel: value i is start + step * i (in double, the multiply-add fused), except
    that its vector loop fills two registers at a time, each from a base rounded to the dtype plus
    k * step; the elements after the last pair of registers are filled one by one. The fused
    multiply-adds are emulated in long double (for float64 a rare last-bit difference remains).
    Past 32,768 elements PyTorch splits the range between threads, each with its own vector loop:
    values there can differ by one unit in the last place."""
    wide = np.longdouble
    lanes = _VECTOR_LANES[dtype]
    vectorized = n // (2 * lanes) * 2 * lanes
    bases = (wide(start) + wide(step) * np.arange(0, vectorized, lanes, dtype=wide)).astype(np.float64)
    head = bases.astype(dtype).astype(wide)[:, None] + np.arange(lanes, dtype=wide) * wide(step)
    tail = wide(start) + wide(step) * np.arange(vectorized, n, dtype=wide)
    # Rounded to double first: the kernel computes in double, then stores in the dtype.
    return np.concatenate([head.reshape(-1), tail]).astype(np.float64).astype(dtype)


def _linspace_as_pytorch(start: float, end: float, steps: int, dtype: np.dtype) -> np.ndarray:
    """torch's linspace_kernel: the step rounded to the dtype, the first half counted up from start and
    the second down from end (so both ends are exact), each value in one rounding as the compiled
    kernel fuses the multiply-add (emulated in long double; for float64 a rare last-bit difference
    remains)."""
    if steps == 1:
        return np.array([start], dtype)
    lo, hi = dtype.type(start), dtype.type(end)
    step = (hi - lo) / dtype.type(steps - 1)
    wide = np.longdouble
    half = steps // 2
    up = wide(lo) + wide(step) * np.arange(half, dtype=wide)
    down = wide(hi) - wide(step) * np.arange(steps - half - 1, -1, -1, dtype=wide)
    return np.concatenate([up, down]).astype(dtype)


def from_numpy(arr: np.ndarray) -> Tensor:
    if not isinstance(arr, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(arr).__name__})")
    return Tensor(arr)       # shares memory with `arr`, as torch.from_numpy does


def as_tensor(data, dtype=None, device=None) -> Tensor:
    if isinstance(data, Tensor) and (dtype is None or _np_dtype(dtype) == data.array.dtype):
        return data
    if isinstance(data, np.ndarray) and (dtype is None or _np_dtype(dtype) == data.dtype):
        return Tensor(data)
    return _tensor(data, dtype=dtype)


def empty(*shape, size=None, dtype=None, requires_grad=False, device=None, **_) -> Tensor:
    """Uninitialized in PyTorch (any values); zeros here, so runs are repeatable."""
    return _make(np.zeros(_sized(shape, size, "empty"), _np_dtype(dtype, DEFAULT_FLOAT)), requires_grad)


def linspace(start, end, steps: int, dtype=None, requires_grad=False, device=None) -> Tensor:
    start, end = (float(v.item()) if isinstance(v, Tensor) else v for v in (start, end))
    out_dtype = np.dtype(_np_dtype(dtype, DEFAULT_FLOAT))
    if int(steps) < 0:
        raise RuntimeError("number of steps must be non-negative")
    if out_dtype in _VECTOR_LANES and int(steps) > 0:
        return _make(_linspace_as_pytorch(start, end, int(steps), out_dtype), requires_grad)
    return _make(np.linspace(start, end, int(steps)).astype(out_dtype), requires_grad)


def logspace(start, end, steps: int, base: float = 10.0, dtype=None, requires_grad=False, device=None) -> Tensor:
    return _make(np.logspace(start, end, int(steps), base=base).astype(_np_dtype(dtype, DEFAULT_FLOAT)),
                 requires_grad)


def eye(n: int, m: int | None = None, dtype=None, requires_grad=False, device=None) -> Tensor:
    for label, count in (("n", n), ("m", m)):
        if count is not None and count < 0:
            raise RuntimeError(f"{label} must be greater or equal to 0, got {count}")
    return _make(np.eye(int(n), None if m is None else int(m), dtype=_np_dtype(dtype, DEFAULT_FLOAT)), requires_grad)


# ---- *_like: same shape (and dtype, unless given) as another tensor ----

def _like_dtype(t: Tensor, dtype):
    return t.array.dtype if dtype is None else _np_dtype(dtype)


def _like_order(t: Tensor) -> str:
    # numpy's order "K" keeps a dense input's layout, as PyTorch's preserve_format (a transposed tensor's
    # zeros_like is transposed too); anything else is made contiguous
    return "K" if is_dense(t.array) else "C"


def zeros_like(t: Tensor, dtype=None, requires_grad=False, device=None, **_) -> Tensor:
    return _make(np.zeros_like(t.array, _like_dtype(t, dtype), order=_like_order(t)), requires_grad)


def ones_like(t: Tensor, dtype=None, requires_grad=False, device=None, **_) -> Tensor:
    return _make(np.ones_like(t.array, _like_dtype(t, dtype), order=_like_order(t)), requires_grad)


def empty_like(t: Tensor, dtype=None, requires_grad=False, device=None, **_) -> Tensor:
    return zeros_like(t, dtype=dtype, requires_grad=requires_grad)


def full_like(t: Tensor, fill_value, dtype=None, requires_grad=False, device=None, **_) -> Tensor:
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    return _make(np.full_like(t.array, fill_value, _like_dtype(t, dtype), order=_like_order(t)), requires_grad)


def rand_like(t: Tensor, dtype=None, requires_grad=False, device=None, generator=None, **_) -> Tensor:
    target = _random_dtype(_like_dtype(t, dtype))
    values = _like_draw(t, lambda shape, _: rng(generator).random(shape, target))
    return _make(values.astype(target, copy=False), requires_grad)


def randn_like(t: Tensor, dtype=None, requires_grad=False, device=None, generator=None, **_) -> Tensor:
    target = _random_dtype(_like_dtype(t, dtype))
    values = _like_draw(t, lambda shape, contiguous: normal_draws(rng(generator), 0.0, 1.0, shape, target,
                                                                  contiguous))
    return _make(values.astype(target, copy=False), requires_grad)


def randint_like(t: Tensor, low, high=None, dtype=None, requires_grad=False, device=None, generator=None,
                 **_) -> Tensor:
    if high is None:
        low, high = 0, low
    values = _like_draw(t, lambda shape, _: rng(generator).integers(low, high, shape))
    return _make(values.astype(_like_dtype(t, dtype)), requires_grad)
