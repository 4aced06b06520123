"""`jax.Array`: an engine Tensor with JAX's surface — immutable, JAX's dtype rules and JAX's repr.

An Array *is* an engine Tensor (same object layout, only the class differs, as the TensorFlow
facade's EagerTensor), so the op registry, autograd, the tracers and the recorder see JAX programs
as they see PyTorch-style ones. What JAX adds lives here:
- dtypes: 64-bit types become 32-bit ones (JAX's default, `jax_enable_x64` off), and Python
  scalars are *weakly typed*: `x * 2.0` keeps x's float16/float32, `jnp.arange(3) * 2.5` is a weak
  float32. The weak flag sits in the Tensor's instance dict (`_weak`); `promote` is JAX's lattice;
- immutability: `x[0] = 1` raises JAX's TypeError, `x.at[i].set(v)` makes a new array;
- printing: `Array([1., 2.], dtype=float32)`, `weak_type=True` when weak, as jax/_src/array.py.
The operators and methods call the jnp functions (engine/compat/jax/numpy), a layer above, which
install themselves here (`install_methods`), as the TensorFlow facade's operators.py does.
"""
from __future__ import annotations

import weakref

import numpy as np

from engine import record
from engine.compat.jax.tracing import TracerIntegerConversionError, traced, tracer_text
from engine.errors import UnsupportedError
from engine.tensor import Tensor, apply

_CANONICAL = {np.dtype(np.float64): np.dtype(np.float32), np.dtype(np.int64): np.dtype(np.int32),
              np.dtype(np.uint64): np.dtype(np.uint32), np.dtype(np.complex128): np.dtype(np.complex64)}
_KIND_RANK = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}
_WEAK_DEFAULT = {0: np.dtype(np.bool_), 1: np.dtype(np.int32), 2: np.dtype(np.float32), 3: np.dtype(np.complex64)}
_WEAK_DEFAULT_X64 = {0: np.dtype(np.bool_), 1: np.dtype(np.int64), 2: np.dtype(np.float64), 3: np.dtype(np.complex128)}

# jax.config.update("jax_enable_x64", True), per run (keyed by the run's recorder), or outside runs
_X64_BY_RUN: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_X64_OUTSIDE = [False]


def x64() -> bool:
    rec = record.current()
    return _X64_OUTSIDE[0] if rec is None else _X64_BY_RUN.get(rec, False)


def set_x64(on: bool) -> None:
    rec = record.current()
    if rec is None:
        _X64_OUTSIDE[0] = bool(on)
    else:
        _X64_BY_RUN[rec] = bool(on)


def default_float() -> np.dtype:
    return np.dtype(np.float64) if x64() else np.dtype(np.float32)


def default_int() -> np.dtype:
    return np.dtype(np.int64) if x64() else np.dtype(np.int32)


def weak_default(rank: int) -> np.dtype:
    return (_WEAK_DEFAULT_X64 if x64() else _WEAK_DEFAULT)[rank]

IMMUTABLE = ("JAX arrays are immutable and do not support in-place item assignment. Instead of x[idx] = y, "
             "use x = x.at[idx].set(y) or another .at[] method: "
             "https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray.at.html")


def canonical(dtype) -> np.dtype:
    """The dtype JAX keeps with x64 off: float64 -> float32, int64 -> int32 ..."""
    dtype = np.dtype(dtype)
    if dtype not in _CANONICAL or x64():
        return dtype
    return _CANONICAL[dtype]


def is_weak(x) -> bool:
    if isinstance(x, Tensor):
        return x.__dict__.get("_weak", False)
    return type(x) in (int, float, complex)


def weak_types(trace) -> dict:
    """Value id -> weakly typed, for the values of `trace`'s graph and of the branch and loop body
    graphs nested in it (for convert_element_type's weak_type in the jaxpr's text)."""
    weak = {v.id: is_weak(t) for t in trace._alive if (v := trace.values.get(id(t))) is not None}
    weak.update(trace.nested_weak)
    return weak


def note_nested_weak(trace, pairs, weak: dict) -> None:
    """A branch's graph copied into `trace`'s (fresh ids): its values' weak types under their new ids
    (`pairs`: (old value, new value); `trace` a tracing.Trace)."""
    for old, new in pairs:
        if old.id in weak:
            trace.nested_weak[new.id] = weak[old.id]


def set_weak(t: Tensor, weak: bool) -> Tensor:
    if weak:
        t.__dict__["_weak"] = True
    else:
        t.__dict__.pop("_weak", None)
    return t


def dtype_of(x) -> np.dtype:
    if isinstance(x, Tensor):
        return x.array.dtype
    if type(x) is bool:
        return np.dtype(np.bool_)
    if type(x) is int:
        return default_int()
    if type(x) is float:
        return default_float()
    if type(x) is complex:
        return weak_default(3)
    return canonical(np.asarray(x).dtype)


def promote(*operands) -> tuple[np.dtype, bool]:
    """JAX's result type of a binary (or n-ary) op: the strong dtypes promote among themselves; a
    weak operand (a Python scalar, a weak array) only lifts the kind (int -> float), and the result
    is weak when no strong operand holds that kind."""
    strong = [dtype_of(x) for x in operands if not is_weak(x)]
    weak = [dtype_of(x) for x in operands if is_weak(x)]
    for d in strong + weak:
        refuse_complex(d)           # (x * 1j)
    result = None
    for d in strong:
        result = d if result is None else _promote_strong(result, d)
    weak_rank = max((_KIND_RANK[d.kind] for d in weak), default=-1)
    if result is None:
        return weak_default(weak_rank), True
    if weak_rank > _KIND_RANK[result.kind]:
        if weak_rank == 3 and result.kind == "f":
            return canonical(np.promote_types(result, np.complex64)), True
        return weak_default(weak_rank), True
    return result, False


def _promote_strong(a: np.dtype, b: np.dtype) -> np.dtype:
    ra, rb = _KIND_RANK[a.kind], _KIND_RANK[b.kind]
    if ra == rb or {a.kind, b.kind} == {"f", "c"}:
        return canonical(np.promote_types(a, b))
    return a if ra > rb else b


def as_array(t: Tensor) -> "Array":
    """View an engine Tensor (an op's output, a trace's stand-in) as an Array, in place."""
    if type(t) is not Array:
        if not isinstance(t, Tensor):
            raise TypeError(f"expected an array, got {type(t).__name__}")
        t.__class__ = Array
    return t


def refuse_complex(dtype) -> None:
    """Complex numbers are refused where they would enter an array: the engine computes in real dtypes
    (its sin, exp, sum of a complex array would drop the imaginary part), so a wrong number never
    prints in their place."""
    if dtype is not None and np.dtype(dtype).kind == "c":
        raise UnsupportedError(
            f"complex numbers ({np.dtype(dtype).name}) are not supported by Dagscope's jax: its engine computes "
            "in real numbers (jnp.sin or jnp.sum of a complex array would lose the imaginary part). Write the "
            "real and imaginary parts as two real arrays.")


def to_array(value, dtype=None, weak: bool | None = None) -> "Array":
    """`jnp.asarray`: an Array of JAX's canonical dtype (Python scalars weakly typed)."""
    refuse_complex(dtype)
    if type(value) is complex:
        refuse_complex(np.complex64)
    elif isinstance(value, Tensor):
        refuse_complex(value.array.dtype)
    if isinstance(value, Tensor):
        arr = value.array
        if dtype is None:
            if canonical(arr.dtype) == arr.dtype:
                return as_array(value)
            dtype = arr.dtype             # a float64 tensor made outside jnp: converted by an op (its history kept)
        target = canonical(dtype)
        if arr.dtype == target:
            return as_array(value)
        return set_weak(as_array(apply("to_dtype", value, dtype=target)), False)
    if hasattr(value, "__jax_array__"):
        return to_array(value.__jax_array__(), dtype)
    if type(value) in (bool, int, float, complex) and dtype is None:
        if type(value) is int and not x64() and not -2**31 <= value < 2**31:
            raise OverflowError(f"Python int {value} too large to convert to int32")
        return set_weak(Array(np.asarray(value, dtype_of(value))), weak if weak is not None else type(value) is not bool)
    if isinstance(value, (list, tuple)) and _holds_array(value):
        return _assembled(value, dtype)
    try:
        arr = np.asarray(_unwrap(value))
    except ValueError as exc:
        raise TypeError(f"cannot make a JAX array from {type(value).__name__}: {exc}") from None
    if arr.dtype.kind not in "biufc":
        if _holds_none(value):
            raise ValueError("None is not a valid value for jnp.array")
        raise TypeError(f"Value '{value}' with dtype {arr.dtype} is not a valid JAX array type. Only arrays of "
                        "numeric types are supported by JAX.")
    refuse_complex(arr.dtype)
    if dtype is not None:
        arr = arr.astype(canonical(dtype))
    elif isinstance(value, (list, tuple)) and _all_python_scalars(value) and arr.dtype.kind in "iufc":
        arr = arr.astype(weak_default(_KIND_RANK[arr.dtype.kind]))      # [1, 2] -> int32, [1., 2.] -> float32
    else:
        arr = arr.astype(canonical(arr.dtype))
    return set_weak(Array(np.array(arr, copy=True)), bool(weak))


def _holds_none(value) -> bool:
    return value is None or (isinstance(value, (list, tuple)) and any(_holds_none(v) for v in value))


def _holds_array(value) -> bool:
    if isinstance(value, (list, tuple)):
        return any(_holds_array(v) for v in value)
    return isinstance(value, Tensor)


def _assembled(value, dtype) -> "Array":
    """jnp.array of a (nested) list holding arrays, built by ops as JAX builds it, so a traced or
    differentiated element stays one (not its value frozen): each element converted to the result's
    type (a weak one made strong), given a leading axis of 1 (broadcast_in_dim), and concatenated."""
    leaves = []

    def collect(v):
        if isinstance(v, (list, tuple)):
            for x in v:
                collect(x)
        else:
            leaves.append(v)
    collect(value)
    target = canonical(dtype) if dtype is not None else promote(*leaves)[0]

    def build(v) -> Tensor:
        if not isinstance(v, (list, tuple)):
            if not isinstance(v, Tensor):
                return Array(np.asarray(_unwrap(v), target))
            t = to_array(v)
            if t.array.dtype != target or is_weak(t):
                t = set_weak(as_array(apply("to_dtype", t, dtype=target)), False)
            return t
        if not v:
            raise TypeError("jnp.array of an empty list holding arrays is not supported by Dagscope")
        parts = []
        for x in v:                                  # each element converted and lifted in turn, as JAX does
            r = build(x)
            parts.append(apply("expand", r, shape=(1,) + tuple(r.array.shape)))
        if len({p.array.shape for p in parts}) != 1:
            raise ValueError(f"setting an array element with a sequence. The requested array has an inhomogeneous "
                             f"shape after 1 dimensions: {[tuple(p.array.shape[1:]) for p in parts]}")
        return apply("cat", *parts, dim=0)
    return set_weak(as_array(build(value)), False)


def _all_python_scalars(value) -> bool:
    if isinstance(value, (list, tuple)):
        return all(_all_python_scalars(v) for v in value)
    return type(value) in (bool, int, float, complex)


def _unwrap(value):
    if isinstance(value, Tensor):
        return value.array
    if isinstance(value, (list, tuple)):
        return [_unwrap(v) for v in value]
    return value


class _IndexUpdateHelper:
    """`x.at`: `x.at[idx]` is a _IndexUpdateRef with set/add/mul/min/max/get."""

    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array

    def __getitem__(self, index):
        return _IndexUpdateRef(self.array, index)

    def __repr__(self) -> str:
        return f"_IndexUpdateHelper({self.array!r})"


class _IndexUpdateRef:
    __slots__ = ("array", "index")

    def __init__(self, array, index):
        self.array, self.index = array, index

    def __repr__(self) -> str:
        return f"_IndexUpdateRef({self.array!r}, {self.index!r})"

    def get(self, *, mode=None, fill_value=None, **kwargs):
        if mode == "fill":              # out-of-bounds positions read fill_value instead of the clamped index's
            return _UPDATE(self.array, self.index, fill_value, "get_fill")
        return self.array[self.index]

    def set(self, values, **kwargs):
        return _UPDATE(self.array, self.index, values, "set")

    def add(self, values, **kwargs):
        return _UPDATE(self.array, self.index, values, "add")

    def subtract(self, values, **kwargs):
        return _UPDATE(self.array, self.index, values, "subtract")

    def mul(self, values, **kwargs):
        return _UPDATE(self.array, self.index, values, "mul")

    multiply = mul

    def divide(self, values, **kwargs):
        return _UPDATE(self.array, self.index, values, "divide")

    def power(self, values, **kwargs):
        return _UPDATE(self.array, self.index, values, "power")

    def min(self, values, **kwargs):
        return _UPDATE(self.array, self.index, values, "min")

    def max(self, values, **kwargs):
        return _UPDATE(self.array, self.index, values, "max")


_UPDATE = None      # numpy/_indexing.update, installed by the jnp layer (install_methods)


class CpuDevice:
    """The one device (`jax.devices()[0]`, `x.devices()`): JAX's CPU device, as it prints."""
    platform = "cpu"
    device_kind = "cpu"
    id = 0

    def __repr__(self) -> str:
        return "CpuDevice(id=0)"


CPU = CpuDevice()


class SingleDeviceSharding:
    """`x.sharding`: every array lives whole on the one CPU device."""

    def __init__(self, device: CpuDevice, memory_kind: str = "device"):
        self.device_set = {device}
        self._device, self.memory_kind = device, memory_kind

    def __repr__(self) -> str:
        return f"SingleDeviceSharding(device={self._device!r}, memory_kind={self.memory_kind})"


class Array(Tensor):
    """What every jnp function returns (`jax.Array`; its class prints as JAX's ArrayImpl)."""

    __slots__ = ()

    @property
    def shape(self) -> tuple:
        return tuple(self.array.shape)

    @property
    def dtype(self) -> np.dtype:
        return self.array.dtype

    @property
    def ndim(self) -> int:
        return self.array.ndim

    @property
    def size(self) -> int:
        return int(self.array.size)

    @property
    def nbytes(self) -> int:
        return int(self.array.nbytes)

    @property
    def itemsize(self) -> int:
        return int(self.array.itemsize)

    @property
    def weak_type(self) -> bool:
        return is_weak(self)

    @property
    def at(self) -> _IndexUpdateHelper:
        return _IndexUpdateHelper(self)

    def devices(self) -> set:
        return {CPU}

    @property
    def sharding(self) -> "SingleDeviceSharding":
        return SingleDeviceSharding(CPU)

    def block_until_ready(self):
        return self

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self.array, dtype=dtype)

    def __setitem__(self, key, value):
        raise TypeError(IMMUTABLE)

    def __len__(self) -> int:
        if self.array.ndim == 0:
            raise TypeError("len() of unsized object")
        return self.array.shape[0]

    def __iter__(self):
        if self.array.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.array.shape[0]))

    def __bool__(self) -> bool:
        if self.array.size != 1:
            raise ValueError("The truth value of an array with more than one element is ambiguous. "
                             "Use a.any() or a.all()")
        return Tensor.__bool__(self)        # tells a trace that Python read a value (jit refuses it)

    def __float__(self) -> float:
        return float(Tensor.item(self))

    def __int__(self) -> int:
        return int(Tensor.item(self))

    def __complex__(self) -> complex:
        return complex(Tensor.item(self))

    def __index__(self) -> int:
        if traced(self):
            spec = f"{self.array.dtype.name}[{','.join(map(str, self.array.shape))}]"
            raise TracerIntegerConversionError(
                f"The __index__() method was called on traced array with shape {spec}\nThis concrete value was "
                "not available in Python because it depends on the value of the arguments.\nSee "
                "https://docs.jax.dev/en/latest/errors.html#jax.errors.TracerIntegerConversionError")
        if self.array.dtype.kind not in "iub" or self.array.ndim != 0:
            raise TypeError("only integer scalar arrays can be converted to a scalar index")
        return int(Tensor.item(self))

    __hash__ = Tensor.__hash__      # JAX raises TypeError; the engine's internals key by tensor

    def item(self, *args):
        if args:
            return self.array.item(*args)
        Tensor.item(self)               # the read a trace hears
        return self.array.item()

    def tolist(self):
        return Tensor.tolist(self)

    def __reduce__(self):
        return (_rebuild, (np.array(self.array), is_weak(self)))

    def __repr__(self) -> str:
        tracer = tracer_text(self, is_weak(self))
        if tracer is not None:
            return tracer
        prefix = "Array("
        dtype_str = f"dtype={self.array.dtype.name}" + (", weak_type=True)" if is_weak(self) else ")")
        line_width = np.get_printoptions()["linewidth"]
        if self.array.size == 0:
            s = f"[], shape={self.shape}"
        else:
            s = np.array2string(self.array, prefix=prefix, suffix=",", separator=", ", max_line_width=line_width)
        last_line_len = len(s) - s.rfind("\n") + 1
        sep = " "
        if last_line_len + len(dtype_str) + 1 > line_width:
            sep = " " * len(prefix)
        return f"{prefix}{s},{sep}{dtype_str}"

    def __str__(self) -> str:
        tracer = tracer_text(self, is_weak(self))
        return str(self.array) if tracer is None else tracer

    def __format__(self, spec: str) -> str:
        tracer = tracer_text(self, is_weak(self))
        if tracer is not None:
            return format(tracer, spec)
        if self.array.ndim == 0:
            return format(self.array[()], spec)
        return format(str(self), spec)


def _rebuild(arr, weak):
    return set_weak(Array(arr), weak)


# The engine Tensor's PyTorch-style methods are not JAX's: an Array has none of them (in-place
# ones would break its immutability). They fail as in JAX. Kept: JAX's surface (installed by the jnp
# layer) and the state autograd and the recorder read.
_ENGINE_STATE = {"array", "requires_grad", "grad", "grad_fn", "is_leaf"}
JAX_METHODS = ("all any argmax argmin argsort astype clip conj conjugate copy cumprod cumsum diagonal dot "
               "flatten imag max mean min nonzero prod ptp ravel real repeat reshape round searchsorted "
               "sort squeeze std sum swapaxes take trace transpose var view T mT").split()


def _not_in_jax(name: str) -> property:
    def get(self):
        raise AttributeError(f"'jaxlib._jax.ArrayImpl' object has no attribute '{name}'")
    return property(get)


for _name in dir(Tensor):
    if not _name.startswith("_") and _name not in _ENGINE_STATE and _name not in Array.__dict__ \
            and _name not in JAX_METHODS:
        setattr(Array, _name, _not_in_jax(_name))


def install_methods(methods: dict, update) -> None:
    """The jnp layer's functions as Array methods and operators (called once by numpy/__init__)."""
    global _UPDATE
    _UPDATE = update
    for name, fn in methods.items():
        setattr(Array, name, fn)


def unsupported_dtype(dtype) -> UnsupportedError:
    return UnsupportedError(f"dtype {dtype} is not supported by Dagscope's JAX")


def _missing(self, name: str):
    raise AttributeError(f"'jaxlib._jax.ArrayImpl' object has no attribute '{name}'")


Array.__getattr__ = _missing            # (only for names the class does not have)
# type(x) prints as JAX's: <class 'jaxlib._jax.ArrayImpl'>; the facade's own code names it Array.
Array.__module__, Array.__name__, Array.__qualname__ = "jaxlib._jax", "ArrayImpl", "ArrayImpl"


class _AbstractArray(type):
    def __instancecheck__(cls, value) -> bool:
        return isinstance(value, Array)

    def __subclasscheck__(cls, sub) -> bool:
        return isinstance(sub, type) and issubclass(sub, Array)


class AbstractArray(metaclass=_AbstractArray):
    """`jax.Array` (and `jnp.ndarray`): the type isinstance checks name, as JAX's abstract base of
    ArrayImpl; not itself the class of any array, and not made directly."""

    def __new__(cls, *args, **kwargs):
        raise TypeError("jax.Array cannot be instantiated directly; use jnp.asarray or jnp.array")


AbstractArray.__module__, AbstractArray.__name__, AbstractArray.__qualname__ = "jax.jaxlib._jax", "Array", "Array"
