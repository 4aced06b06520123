"""`import torch` inside a run: Dagscope's PyTorch-compatible surface. Names outside it fail loudly
(UnsupportedError naming the attribute and listing what exists), never with a wrong result."""
from __future__ import annotations

import importlib.util as _importlib_util
from builtins import bool as _builtin_bool

import numpy as _np

from engine import functional as _functional
from engine import autograd as _engine_autograd
from engine.autograd import is_grad_enabled, set_grad_enabled
from engine.functional import _out
from engine.compat.torch._products import addmm
from engine.compat.torch._random import (bernoulli, get_rng_state, initial_seed, multinomial, seed,
                                         set_rng_state)
from engine.compat.torch._selection import nonzero, where
from engine.compat.torch._serialization import load, save
from engine.format import set_printoptions
from engine.random_pytorch import Generator, default_generator
from engine.compat.torch._surface import unsupported_getattr as _unsupported_getattr
from engine.compat.torch_dtypes import (bfloat16, bool, double, dtype, finfo, float, float16, float32, float64, half,
                                        iinfo, int, int8, int16, int32, int64, long, short, uint8)
from engine.compat.torch_device import device
from engine.compat.torch_size import Size
from engine.errors import UnsupportedError as _UnsupportedError
from engine.creation import (arange, as_tensor, empty, empty_like, eye, from_numpy, full, full_like, linspace,
                             logspace, manual_seed, normal, ones, ones_like, rand, rand_like, randint,
                             randint_like, randn, randn_like, randperm, tensor, zeros, zeros_like)
from engine.compat.torch._tensor_type import (BoolTensor, ByteTensor, CharTensor, DoubleTensor, FloatTensor,
                                               HalfTensor, IntTensor, LongTensor, ShortTensor, Tensor)
from engine.tensor import Tensor as _EngineTensor

__version__ = "2.13.0+dagscope"

# torch.<op>(tensor, ...) is tensor.<op>(...) in PyTorch for every name here. Each is taken from
# engine.functional when it defines it, otherwise forwarded to the Tensor method of that name;
# a name neither provides is left out (and so fails as unsupported).
_TENSOR_FUNCTIONS = (
    "abs", "add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide", "neg", "negative",
    "pow", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "square", "sin", "cos",
    "tan", "sinh", "cosh", "tanh", "sigmoid", "relu", "erf", "sign", "reciprocal", "floor", "ceil", "round",
    "trunc", "frac", "clamp", "clip", "maximum", "minimum", "fmax", "fmin", "softmax", "log_softmax",
    "logsumexp", "matmul", "mm", "bmm", "sum", "mean", "prod", "max", "min",
    "amax", "amin", "argmax", "argmin", "var", "std", "norm", "cumsum", "cumprod", "reshape", "flatten",
    "transpose", "permute", "squeeze", "unsqueeze", "t", "gather", "scatter", "index_select",
    "masked_fill", "broadcast_to", "flip", "fliplr", "flipud", "roll", "dot", "mv", "outer", "ger", "chunk", "split", "tril", "triu", "diag", "trace",
    "eq", "ne", "gt", "lt", "ge", "le", "equal", "isnan", "isinf", "isfinite", "isposinf", "isneginf", "logical_and", "logical_or",
    "logical_not", "any", "all", "sort", "argsort", "topk", "cummax", "cummin", "kthvalue", "median", "mode", "clone", "numel", "count_nonzero",
    "allclose", "isclose", "lerp", "addcmul", "addcdiv", "unbind", "narrow", "select", "repeat_interleave",
    "tile", "movedim", "swapaxes", "cross", "dist", "einsum", "cdist", "tensordot", "diff", "bincount",
    "unique", "meshgrid", "atleast_1d", "atleast_2d", "remainder", "fmod", "floor_divide", "clamp_min", "clamp_max", "nan_to_num",
    "scatter_add", "index_put", "var_mean", "std_mean",
    "detach", "conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d", "relu_", "sigmoid_", "tanh_", "sqrt_", "exp_", "neg_", "reciprocal_", "clamp_", "zero_",
    "fill_")
# (torch.dropout, torch.batch_norm, torch.layer_norm and torch.embedding take their arguments in
# another order than their torch.nn.functional namesakes: not exported, so they fail as unsupported.)
# Functions on lists of tensors (no Tensor method form): only from engine.functional.
_LIST_FUNCTIONS = ("cat", "concat", "concatenate", "stack", "hstack", "vstack", "dstack", "broadcast_tensors",
                   "block_diag", "cartesian_prod")


def _method_forwarder(name: str):
    def call(input, *args, **kwargs):
        if not isinstance(input, _EngineTensor):
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
        return getattr(input, name)(*args, **kwargs)
    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"torch.{name}(input, ...) = input.{name}(...)"
    return call


def allclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False):
    """|input - other| <= atol + rtol * |other| everywhere (a Python bool, as torch.allclose)."""
    return _builtin_bool(_np.allclose(input.array, other.array, rtol=rtol, atol=atol, equal_nan=equal_nan))


def isclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False):
    """allclose elementwise: a bool tensor (no gradient, as every comparison)."""
    return _EngineTensor(_np.isclose(input.array, other.array, rtol=rtol, atol=atol, equal_nan=equal_nan))


def equal(input: Tensor, other: Tensor):
    """Same shape and the same values (a Python bool)."""
    return input.array.shape == other.array.shape and _builtin_bool((input.array == other.array).all())


# The functions that take PyTorch's `out=`, by how out's dtype meets the result's (engine/functional/_out.py).
# (torch.matmul takes it itself; max/min/sort/topk with out=(values, indices) do not, yet.)
_OUT_RULES = {
    **dict.fromkeys((
        "abs", "add", "sub", "subtract", "mul", "multiply", "div", "divide", "neg", "negative", "pow", "exp",
        "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "square", "sin", "cos", "tan", "sinh",
        "cosh", "tanh", "sigmoid", "erf", "sign", "reciprocal", "floor", "ceil", "round", "trunc", "frac",
        "maximum", "minimum", "fmax", "fmin", "eq", "ne", "gt", "lt", "ge", "le", "logical_and", "logical_or",
        "logical_not", "remainder", "fmod", "floor_divide", "lerp", "addcmul", "addcdiv", "isposinf", "isneginf",
        "mean", "var", "std"), _out.CAST),
    **dict.fromkeys(("sum", "prod", "cumsum", "cumprod"), _out.ACCUMULATE),
    **dict.fromkeys(("mm", "bmm", "dot", "mv", "outer", "ger", "norm", "gather", "tril", "triu", "argmax",
                     "argmin"), _out.EXACT),
    **dict.fromkeys(("cat", "concat", "concatenate", "stack", "hstack", "vstack", "dstack"), _out.CONCAT),
}


def _export_functions() -> None:
    namespace = globals()
    for name in _TENSOR_FUNCTIONS + _LIST_FUNCTIONS:
        if name in _functional.__all__:
            namespace[name] = getattr(_functional, name)
        elif name in _TENSOR_FUNCTIONS and hasattr(_EngineTensor, name):
            namespace[name] = _method_forwarder(name)
        if name in _OUT_RULES and name in namespace:
            namespace[name] = _out.with_out(namespace[name], name, _OUT_RULES[name])
        elif name in ("max", "min", "sort", "topk") and name in namespace:
            namespace[name] = _out.with_pair_out(namespace[name], name)


_export_functions()


def is_tensor(obj) -> bool:
    return isinstance(obj, _EngineTensor)


def is_floating_point(input: Tensor) -> bool:
    return input.array.dtype.kind == "f"


def get_default_device():
    return device("cpu")


def set_default_device(device) -> None:
    """Dagscope runs on the CPU: "cpu" (or None, PyTorch's reset) is the only device it can default to."""
    if device is not None and str(device).split(":")[0] != "cpu":
        raise AssertionError("Torch not compiled with CUDA enabled" if str(device).startswith("cuda") else
                             f"torch.set_default_device({str(device)!r}): Dagscope runs on the CPU only")


def get_default_dtype():
    return float32


def set_default_dtype(d) -> None:
    if d != float32:
        raise _UnsupportedError("torch.set_default_dtype: Dagscope's default float is torch.float32 and cannot be "
                               "changed; pass dtype=torch.float64 to the tensors that need it.")


class no_grad(_engine_autograd.no_grad):
    """torch.no_grad: a context manager, a decorator `@torch.no_grad()`, and (as PyTorch 2) a bare
    decorator `@torch.no_grad`."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class enable_grad(_engine_autograd.enable_grad):
    """torch.enable_grad, usable the same three ways as no_grad."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


def inference_mode(mode=True):
    """Like no_grad (Dagscope has no separate inference tensors); also a bare decorator. As in PyTorch,
    inference_mode(False) turns gradients on (even inside no_grad)."""
    if callable(mode):
        return no_grad()(mode)
    return no_grad() if mode else enable_grad()


# Submodules, as `import torch` makes them attributes in PyTorch.
from engine.compat.torch import accelerator, autograd, backends, cuda, jit, linalg, nn, optim, utils  # noqa: E402,F401
from engine.compat.torch.nn import functional as _nn_functional  # noqa: E402,F401

if _importlib_util.find_spec("engine.codegen") is not None:
    def compile(model=None, *args, **kwargs):
        """torch.compile is engine/codegen/compiled_function.py (static capture, passes and compiled kernels)."""
        # Imported on the first call: `import torch` (every run) stays without codegen's modules.
        from engine.codegen.compiled_function import compile as compile_
        return compile_(model, *args, **kwargs)

__getattr__ = _unsupported_getattr("torch", globals())
