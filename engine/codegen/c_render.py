"""The C renderer (pure: Kernel -> C source text). One C function per fusion group.

`C_EXPR` maps every elementwise op of the registry to its C expression and `C_REDUCE` every
reduction (and softmax/log_softmax) to its accumulation; tests fail when an op is registered
without one. Expressions are the numerically careful forms the numpy forwards use (sigmoid as
1 / (1 + exp(-x)), softplus through log1p(exp(-|z|)), NaN propagated by max/min/relu like numpy).
float32 uses the f-suffixed libm calls, and tanh in float32 uses a rational approximation (XLA's
and Eigen's) that, unlike the libm call, the compiler can vectorize.
"""
from __future__ import annotations

import math
import re

import numpy as np

from engine.codegen.kernel import Kernel, Literal, Step
from engine.codegen.library_kernels import render_library
from engine.ops.dtypes import promote

C_TYPES = {"float32": "float", "float64": "double", "bool": "uint8_t", "int8": "int8_t",
           "uint8": "uint8_t", "int16": "int16_t", "int32": "int32_t", "int64": "int64_t"}

PRELUDE = r"""#include <math.h>
#include <stdint.h>

/* tanh for float32 as a 13/6 rational function on [-7.9, 7.9] (Eigen's and XLA's CPU tanh):
   pure arithmetic, so loops calling it vectorize; a few ulp from libm's tanhf. NaN stays NaN
   because both clamps compare false for it. */
static inline float ds_tanhf(float x) {
  const float c = 7.90531110763549805f;
  float ax = x < 0 ? -x : x;
  float y = x > c ? c : (x < -c ? -c : x);
  float y2 = y * y;
  float p = y2 * -2.76076847742355e-16f + 2.00018790482477e-13f;
  p = p * y2 + -8.60467152213735e-11f;
  p = p * y2 + 5.12229709037114e-08f;
  p = p * y2 + 1.48572235717979e-05f;
  p = p * y2 + 6.37261928875436e-04f;
  p = p * y2 + 4.89352455891786e-03f;
  p = p * y;
  float q = y2 * 1.19825839466702e-06f + 1.18534705686654e-04f;
  q = q * y2 + 2.26843463243900e-03f;
  q = q * y2 + 4.89352518554385e-03f;
  float r = p / q;   /* computed unconditionally: a conditional division would block if-conversion */
  return ax < 0.0004f ? x : r;
}

static inline float ds_signf(float x) { return x != x ? x : (float)((x > 0) - (x < 0)); }
static inline double ds_sign(double x) { return x != x ? x : (double)((x > 0) - (x < 0)); }

/* softplus(x) = log(1 + exp(beta x)) / beta, as log1p(exp(-|z|)) + max(z, 0): no overflow. */
static inline float ds_softplusf(float x, float beta, float threshold) {
  float z = x * beta, az = z < 0 ? -z : z;
  return z > threshold ? x : ((z > 0 ? z : 0.0f) + log1pf(expf(-az))) / beta;
}
static inline double ds_softplus(double x, double beta, double threshold) {
  double z = x * beta, az = z < 0 ? -z : z;
  return z > threshold ? x : ((z > 0 ? z : 0.0) + log1p(exp(-az))) / beta;
}

/* Python's / numpy's floor division and remainder (the remainder takes the divisor's sign),
   computed as numpy's npy_divmod does so results agree to the last bit. No macros: the sandbox's
   compile broker accepts only #include <math.h>/<stdint.h> and omp simd pragmas. */
static inline float ds_floordivf(float a, float b) {
  float mod = fmodf(a, b), div;
  if (!b) return a / b;
  div = (a - mod) / b;
  if (mod && ((b < 0) != (mod < 0))) div -= 1;
  if (div) { float f = floorf(div); return div - f > (float)0.5 ? f + 1 : f; }
  return copysignf((float)0, a / b);
}
static inline float ds_remf(float a, float b) {
  float mod = fmodf(a, b);
  if (!b) return mod;
  if (mod) return ((b < 0) != (mod < 0)) ? mod + b : mod;
  return copysignf((float)0, b);
}
static inline double ds_floordiv(double a, double b) {
  double mod = fmod(a, b), div;
  if (!b) return a / b;
  div = (a - mod) / b;
  if (mod && ((b < 0) != (mod < 0))) div -= 1;
  if (div) { double f = floor(div); return div - f > (double)0.5 ? f + 1 : f; }
  return copysign((double)0, a / b);
}
static inline double ds_rem(double a, double b) {
  double mod = fmod(a, b);
  if (!b) return mod;
  if (mod) return ((b < 0) != (mod < 0)) ? mod + b : mod;
  return copysign((double)0, b);
}

/* integers: numpy gives 0 for a zero divisor (C would be undefined) */
static inline int64_t ds_ifloordiv(int64_t a, int64_t b) {
  if (!b) return 0;
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
static inline int64_t ds_irem(int64_t a, int64_t b) {
  if (!b) return 0;
  int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

static inline int64_t ds_ifmod(int64_t a, int64_t b) {   /* C's %: the dividend's sign, as np.fmod */
  return b ? a % b : 0;
}

static inline int64_t ds_ipow(int64_t a, int64_t b) {
  int64_t r = 1;
  for (; b > 0; b >>= 1, a *= a) if (b & 1) r *= a;
  return r;
}
"""


class Ctx:
    """What an expression rule sees: the compute C type, attrs and literal operand values."""

    def __init__(self, dtype: np.dtype, attrs: dict, literals: list):
        self.dtype = np.dtype(dtype)
        self.t = C_TYPES[self.dtype.name]
        self.is_float = self.dtype.kind == "f"
        self.attrs = attrs
        self.literals = literals

    def f(self, name: str) -> str:
        """libm function for this type: expf for float, exp for double."""
        return name + "f" if self.t == "float" else name

    def c(self, value) -> str:
        return literal(value, self.dtype)


def literal(value, dtype: np.dtype) -> str:
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        v = float(value)
        cast = "(float)" if dtype == np.float32 else "(double)"
        if math.isnan(v):
            return f"{cast}NAN"
        if math.isinf(v):
            return f"{cast}{'-' if v < 0 else ''}INFINITY"
        if dtype == np.float32:
            return repr(float(np.float32(v))) + "f"
        return repr(v)
    if dtype == np.bool_:
        return "1" if value else "0"
    return f"INT64_C({int(value)})" if dtype.itemsize == 8 else str(int(value))


def _pow(x: Ctx, a: str, e) -> str:
    if e == 2:
        return f"({a} * {a})"
    if e == 3:
        return f"({a} * {a} * {a})"
    if e == 4:
        return f"(({a} * {a}) * ({a} * {a}))"
    if e == 1:
        return a
    if e == 0:
        return x.c(1)
    if x.is_float and e == 0.5:
        return f"{x.f('sqrt')}({a})"
    if x.is_float and e == -1:
        return f"({x.c(1)} / {a})"
    return f"{x.f('pow')}({a}, {x.c(e)})" if x.is_float else f"(({x.t})ds_ipow({a}, {x.c(e)}))"


def _pow_binary(x: Ctx, a: str, b: str) -> str:
    if x.literals[1] is not None:
        return _pow(x, a, x.literals[1])
    return f"{x.f('pow')}({a}, {b})" if x.is_float else f"(({x.t})ds_ipow({a}, {b}))"


def _tanh(x: Ctx, a: str) -> str:
    return f"ds_tanhf({a})" if x.t == "float" else f"{x.f('tanh')}({a})"


def _sigmoid(x: Ctx, a: str) -> str:
    # 1 / (1 + exp(-x)), the registry's form: precise in the left tail (the tanh form through
    # ds_tanhf, which vectorizes, gave exactly 0 below x = -15.8); exp overflowing to inf gives 0
    return f"({x.c(1)} / ({x.c(1)} + {x.f('exp')}(-{a})))"


def _clamp(x: Ctx, a: str) -> str:
    lo, hi = x.attrs.get("min"), x.attrs.get("max")
    if lo is not None:       # NaN compares false both ways, so it passes through as numpy's does
        a = f"({a} < {x.c(lo)} ? {x.c(lo)} : {a})"
    if hi is not None:
        a = f"({a} > {x.c(hi)} ? {x.c(hi)} : {a})"
    return a


def _clamp_tensor(x: Ctx, a: str, *bounds: str) -> str:
    # maximum then minimum, NaN-propagating as theirs (the ops differ only in their gradients)
    kinds = {"both": ("min", "max"), "min": ("min",), "max": ("max",)}[x.attrs.get("bounds_are", "both")]
    for kind, b in zip(kinds, bounds):
        a = C_EXPR["maximum" if kind == "min" else "minimum"](x, a, b)
    return a


def _nan_to_num(x: Ctx, a: str) -> str:
    """NaN, then what is past the dtype's largest finite value either way (only the infinities)."""
    if not x.is_float:
        return a
    top = float(np.finfo(x.dtype).max)
    nan, pos, neg = (x.attrs.get(k) for k in ("nan", "posinf", "neginf"))
    nan = 0.0 if nan is None else nan
    pos, neg = (top if pos is None else pos), (-top if neg is None else neg)
    return (f"({a} != {a} ? {x.c(nan)} : ({a} > {x.c(top)} ? {x.c(pos)} : "
            f"({a} < {x.c(-top)} ? {x.c(neg)} : {a})))")


def _gelu(x: Ctx, a: str) -> str:
    if x.attrs.get("approximate", "none") == "tanh":
        inner = f"{x.c(math.sqrt(2.0 / math.pi))} * ({a} + {x.c(0.044715)} * {a} * {a} * {a})"
        return f"({x.c(0.5)} * {a} * ({x.c(1)} + {_tanh(x, inner)}))"
    # fma(0.5 x, erf(x / sqrt 2), 0.5 x): the registry's fused form (one rounding, +0.0 where erf is -1)
    half = f"({x.c(0.5)} * {a})"
    return f"{x.f('fma')}({half}, {x.f('erf')}({a} * {x.c(1 / math.sqrt(2.0))}), {half})"


def _to_dtype(x: Ctx, a: str) -> str:
    return f"({a} != 0)" if x.dtype == np.bool_ else f"(({x.t}){a})"


C_EXPR = {
    "add": lambda x, a, b: f"({a} + {b})",
    "sub": lambda x, a, b: f"({a} - {b})",
    "mul": lambda x, a, b: f"({a} * {b})",
    "div": lambda x, a, b: f"({a} / {b})",
    "div_scalar": lambda x, a: f"({a} / {x.c(x.attrs['divisor'])})",     # (an integer x is converted first)
    "maximum": lambda x, a, b: f"(({a} > {b} || {a} != {a}) ? {a} : {b})",
    "minimum": lambda x, a, b: f"(({a} < {b} || {a} != {a}) ? {a} : {b})",
    "pow": _pow_binary,
    "pow_scalar": lambda x, a: _pow(x, a, x.attrs["exponent"]),
    "neg": lambda x, a: f"(-{a})",
    "reciprocal": lambda x, a: f"({x.c(1)} / {a})",       # (an integer x is converted first)
    "exp": lambda x, a: f"{x.f('exp')}({a})",
    "log": lambda x, a: f"{x.f('log')}({a})",
    "sqrt": lambda x, a: f"{x.f('sqrt')}({a})",
    "abs": lambda x, a: f"{x.f('fabs')}({a})" if x.is_float else (a if x.dtype == np.bool_ else f"({a} < 0 ? -{a} : {a})"),
    "tanh": _tanh,
    "sigmoid": _sigmoid,
    "relu": lambda x, a: f"({a} < {x.c(0)} ? {x.c(0)} : {a})",
    # PyTorch's x > 0 ? x : x * slope (NaN and -0.0 take the slope branch, as in the registry)
    "leaky_relu": lambda x, a: f"({a} > {x.c(0)} ? {a} : {a} * {x.c(x.attrs.get('negative_slope', 0.01))})",
    "silu": lambda x, a: f"({a} * {_sigmoid(x, a)})",
    "erf": lambda x, a: f"{x.f('erf')}({a})",
    "floor": lambda x, a: f"{x.f('floor')}({a})" if x.is_float else a,
    "ceil": lambda x, a: f"{x.f('ceil')}({a})" if x.is_float else a,
    "round": lambda x, a: f"{x.f('rint')}({a})" if x.is_float else a,      # rint: half to even
    "remainder": lambda x, a, b: (f"ds_rem{'f' if x.t == 'float' else ''}({a}, {b})" if x.is_float
                                  else f"(({x.t})ds_irem({a}, {b}))"),
    "fmod": lambda x, a, b: f"{x.f('fmod')}({a}, {b})" if x.is_float else f"(({x.t})ds_ifmod({a}, {b}))",
    "floor_divide": lambda x, a, b: (f"ds_floordiv{'f' if x.t == 'float' else ''}({a}, {b})" if x.is_float
                                     else f"(({x.t})ds_ifloordiv({a}, {b}))"),
    "sin": lambda x, a: f"{x.f('sin')}({a})",
    "cos": lambda x, a: f"{x.f('cos')}({a})",
    "gelu": _gelu,
    "softplus": lambda x, a: (f"{'ds_softplusf' if x.t == 'float' else 'ds_softplus'}({a}, "
                              f"{x.c(x.attrs.get('beta', 1.0))}, {x.c(x.attrs.get('threshold', 20.0))})"),
    "clamp": _clamp,
    "nan_to_num": _nan_to_num,
    "clamp_tensor": _clamp_tensor,
    "tanh_backward": lambda x, g, y: f"({g} * ({x.c(1)} - {y} * {y}))",
    "sigmoid_backward": lambda x, g, y: f"({g} * ({y} * ({x.c(1)} - {y})))",
    "threshold_backward": lambda x, g, y: f"({y} > {x.c(x.attrs.get('threshold', 0.0))} ? {g} : {x.c(0)})",
    "masked_fill": lambda x, a, m: f"({m} ? {x.c(x.attrs['value'])} : {a})",
    "clone": lambda x, a: a,
    "stop_gradient": lambda x, a: a,
    "to_dtype": _to_dtype,
    "gt": lambda x, a, b: f"({a} > {b})",
    "lt": lambda x, a, b: f"({a} < {b})",
    "ge": lambda x, a, b: f"({a} >= {b})",
    "le": lambda x, a, b: f"({a} <= {b})",
    "eq": lambda x, a, b: f"({a} == {b})",
    "ne": lambda x, a, b: f"({a} != {b})",
    "sign": lambda x, a: (f"{'ds_signf' if x.t == 'float' else 'ds_sign'}({a})" if x.is_float
                          else (a if x.dtype == np.bool_ else f"(({a} > 0) - ({a} < 0))")),
    "bitwise_and": lambda x, a, b: f"({a} & {b})",
    "bitwise_or": lambda x, a, b: f"({a} | {b})",
    "bitwise_xor": lambda x, a, b: f"({a} ^ {b})",
    "bitwise_not": lambda x, a: f"(!{a})" if x.dtype == np.bool_ else f"(~{a})",
    "isnan": lambda x, a: f"({a} != {a})" if x.is_float else "0",
    "isinf": lambda x, a: f"({a} == INFINITY || {a} == -INFINITY)" if x.is_float else "0",
    "isposinf": lambda x, a: f"({a} == INFINITY)" if x.is_float else "0",
    "isneginf": lambda x, a: f"({a} == -INFINITY)" if x.is_float else "0",
    "isfinite": lambda x, a: f"({a} - {a} == 0)" if x.is_float else "1",     # inf - inf and NaN are NaN
    # PyTorch's CPU kernels' formulas (hardtanh is clamp: NaN stays NaN)
    "hardtanh": lambda x, a: (f"(({a} < {x.c(x.attrs.get('min_val', -1.0))}) ? {x.c(x.attrs.get('min_val', -1.0))} : "
                              f"(({a} > {x.c(x.attrs.get('max_val', 1.0))}) ? {x.c(x.attrs.get('max_val', 1.0))} : {a}))"),
    "hardswish": lambda x, a: (f"({a} * ({a} + {x.c(3)} < {x.c(0)} ? {x.c(0)} : ({a} + {x.c(3)} > {x.c(6)} ? {x.c(6)} : "
                               f"{a} + {x.c(3)})) / {x.c(6)})"),
    "hardsigmoid": lambda x, a: (f"(({a} + {x.c(3)} < {x.c(0)} ? {x.c(0)} : ({a} + {x.c(3)} > {x.c(6)} ? {x.c(6)} : "
                                 f"{a} + {x.c(3)})) / {x.c(6)})"),
    "elu": lambda x, a: (f"({a} > {x.c(0)} ? {a} * {x.c(x.attrs.get('scale', 1.0))} : "
                         f"{x.f('expm1')}({a} * {x.c(x.attrs.get('input_scale', 1.0))}) * "
                         f"({x.c(x.attrs.get('alpha', 1.0))} * {x.c(x.attrs.get('scale', 1.0))}))"),
    "celu": lambda x, a: (f"({a} > {x.c(0)} ? {a} : {x.f('expm1')}({a} * {x.c(1.0 / x.attrs.get('alpha', 1.0))}) * "
                          f"{x.c(x.attrs.get('alpha', 1.0))})"),
    "log_sigmoid": lambda x, a: (f"(({a} < {x.c(0)} ? {a} : {x.c(0)}) - "
                                 f"{x.f('log1p')}({x.f('exp')}(-{x.f('fabs')}({a}))))"),
    "mish": lambda x, a: f"({a} * {_tanh(x, x.f('log1p') + '(' + x.f('exp') + '(' + a + '))')})",
    "where": lambda x, c, a, b: f"({c} ? {a} : {b})",
    # dropout with its mask as an input (deterministic): x * mask / (1 - p)
    "dropout": lambda x, a, m: f"({a} * {m} * {x.c(0.0 if x.attrs['p'] >= 1 else 1.0 / (1.0 - x.attrs['p']))})",
}

COMPARISONS = {"gt", "lt", "ge", "le", "eq", "ne"}
_BOOL_TESTS = {"isnan", "isinf", "isposinf", "isneginf", "isfinite"}    # a bool of the operand's own type

# Reductions: how each accumulates. "sum": acc += x; "extreme": NaN-propagating max/min;
# "arg": index of the extreme; two-pass "moments" (var/std) and "logsumexp" re-run the body;
# "vector_norm": (sum |x|^p)^(1/p), or the max/min of |x| for p = +-inf.
C_REDUCE = {"sum": "sum", "sum_to_size": "sum", "mean": "sum", "max": "extreme", "amax": "extreme",
            "min": "extreme", "amin": "extreme", "argmax": "arg", "argmin": "arg",
            "var": "moments", "std": "moments", "logsumexp": "logsumexp", "norm": "vector_norm",
            "softmax": "normalize", "log_softmax": "normalize"}
_GREATER = {"max": True, "amax": True, "argmax": True, "min": False, "amin": False, "argmin": False}


def operand_dtypes(step: Step) -> list[np.dtype]:
    """The type each operand is converted to before the op (PyTorch's promotion, made explicit)."""
    if step.op in COMPARISONS:
        return [promote(*step.arg_dtypes)] * len(step.args)
    if step.op == "where":
        return [np.dtype(np.bool_), step.dtype, step.dtype]
    if step.op == "masked_fill":
        return [step.dtype, np.dtype(np.bool_)]
    if step.op in _BOOL_TESTS or step.op == "to_dtype":
        return list(step.arg_dtypes)
    return [step.dtype] * len(step.args)


def _operand(ref, have: np.dtype, want: np.dtype) -> str:
    if isinstance(ref, Literal):
        return literal(ref.value, want)
    if np.dtype(have) == np.dtype(want):
        return ref
    if np.dtype(want) == np.bool_:
        return f"({ref} != 0)"
    return f"(({C_TYPES[np.dtype(want).name]}){ref})"


def step_code(step: Step) -> str:
    want = operand_dtypes(step)
    args = [_operand(r, h, w) for r, h, w in zip(step.args, step.arg_dtypes, want)]
    lits = [r.value if isinstance(r, Literal) else None for r in step.args]
    compute = want[0] if step.op in COMPARISONS or step.op in _BOOL_TESTS else step.dtype
    return C_EXPR[step.op](Ctx(compute, step.attrs, lits), *args)


def _index(strides, loop_vars) -> str:
    terms = [f"{v}*{s}" if s != 1 else v for v, s in zip(loop_vars, strides) if s != 0]
    return " + ".join(terms) or "0"


def _body(kernel: Kernel, loop_vars, pad: str, stores: bool) -> list[str]:
    lines = []
    for ld in kernel.loads:
        t = C_TYPES[kernel.inputs[ld.arg].dtype.name]
        lines.append(f"{pad}const {t} {ld.var} = in{ld.arg}[{_index(ld.strides, loop_vars)}];")
    for st in kernel.steps:
        if st.comment:
            lines.append(f"{pad}/* {st.comment} */")
        lines.append(f"{pad}const {C_TYPES[st.dtype.name]} {st.var} = {step_code(st)};")
    if stores:
        for so in kernel.stores:
            lines.append(f"{pad}out{so.arg}[{_index(so.strides, loop_vars)}] = {so.ref};")
    return lines


def _signature(kernel: Kernel) -> str:
    params = [f"const {C_TYPES[a.dtype.name]} *in{i}" for i, a in enumerate(kernel.inputs)]
    params += [f"{C_TYPES[a.dtype.name]} *out{i}" for i, a in enumerate(kernel.outputs)]
    if kernel.library:
        params.append("int64_t *status")
    return f"void {kernel.name}({', '.join(params) or 'void'})"


def _open_loops(dims, loop_vars, pad, lines):
    for size, var in zip(dims, loop_vars):
        lines.append(f"{pad}for (int64_t {var} = 0; {var} < {size}; {var}++) {{")
        pad += "  "
    return pad


def _close_loops(n, pad, lines):
    for _ in range(n):
        pad = pad[:-2]
        lines.append(f"{pad}}}")
    return pad


def render_kernel(kernel: Kernel) -> str:
    """The C function of one kernel, with its nodes (and the user's lines) as comments. Rendered
    once per lowered kernel: the module and the run record's display both ask for it."""
    source = kernel.__dict__.get("_c_source")
    if source is None:
        source = kernel.__dict__["_c_source"] = _render_kernel(kernel)
    return source


def _render_kernel(kernel: Kernel) -> str:
    loop_vars = [f"i{d}" for d in range(len(kernel.dims))]
    # comments (node ids, the user's lines) only on the kernels the run displays: a kernel rebuilt
    # from its description to be compiled (description.py) has none, so nothing a run named or
    # wrote reaches the compiler
    head = [f"/* {kernel.name}: nodes {' '.join(kernel.node_ids)}; loops {list(kernel.dims)} */"] \
        if kernel.node_ids else []
    head.append(_signature(kernel) + " {")
    lines: list[str] = []
    if kernel.library:
        lines += render_library(kernel, C_TYPES, literal)
    elif kernel.reduction is None:
        pad = _open_loops(kernel.dims, loop_vars, "  ", lines)
        lines += _body(kernel, loop_vars, pad, True)
        _close_loops(len(kernel.dims), pad, lines)
    else:
        lines += _render_reduction(kernel, loop_vars)
    return "\n".join(head + lines + ["}"]) + "\n"


def _render_output_accumulation(kernel: Kernel, loop_vars) -> list[str]:
    """out = 0; for every point in memory order: out[kept index] += value; mean: out /= n."""
    red = kernel.reduction
    out_t = C_TYPES[red.dtype.name]
    n_out = 1
    for size, r in zip(kernel.dims, kernel.reduced):
        n_out *= 1 if r else size
    lines = [f"  /* {red.comment} */"] if red.comment else []
    lines.append(f"  for (int64_t o = 0; o < {n_out}; o++) out{red.out_arg}[o] = 0;")
    pad = _open_loops(kernel.dims, loop_vars, "  ", lines)
    lines += _body(kernel, loop_vars, pad, True)
    x = _operand(red.ref, red.in_dtype, red.dtype)
    lines.append(f"{pad}out{red.out_arg}[{_index(red.out_strides, loop_vars)}] += {x};")
    _close_loops(len(kernel.dims), pad, lines)
    if red.op == "mean":
        lines.append(f"  for (int64_t o = 0; o < {n_out}; o++) out{red.out_arg}[o] = "
                     f"({out_t})(out{red.out_arg}[o] / (double){red.count});")
    return lines


def _render_reduction(kernel: Kernel, loop_vars) -> list[str]:
    if kernel.accumulate_in_output:
        return _render_output_accumulation(kernel, loop_vars)
    red = kernel.reduction
    family = C_REDUCE[red.op]
    n_kept = sum(1 for r in kernel.reduced if not r)
    kept_vars, red_vars = loop_vars[:n_kept], loop_vars[n_kept:]
    red_dims = kernel.dims[n_kept:]
    in_t = C_TYPES[red.in_dtype.name]
    out_t = C_TYPES[red.dtype.name]
    is_float = red.in_dtype.kind == "f"
    acc_t = "double" if is_float else "int64_t"
    x = _operand(red.ref, red.in_dtype, red.in_dtype)
    lines: list[str] = []
    pad = _open_loops(kernel.dims[:n_kept], kept_vars, "  ", lines)
    out_ix = f"out{red.out_arg}[{_index(red.out_strides[:n_kept], kept_vars)}]"
    # a lone reduced loop whose accumulation is a plain sum may be vectorized (OpenMP simd,
    # compiled with -fopenmp-simd: no threads); other orders keep numpy's sequential semantics
    simd = len(red_dims) == 1

    def reduce_loop(first: bool, update: list[str], pragma: str | None):
        if pragma and simd:
            lines.append(f"{pad}#pragma omp simd {pragma}")
        inner = _open_loops(red_dims, red_vars, pad, lines)
        lines.extend(_body(kernel, loop_vars, inner, first))
        lines.extend(inner + u for u in update)
        _close_loops(len(red_dims), inner, lines)

    if red.comment:
        lines.append(f"{pad}/* {red.comment} */")
    if family == "sum":
        lines.append(f"{pad}{acc_t} acc = 0;")
        reduce_loop(True, [f"acc += {x};"], "reduction(+:acc)")
        value = f"acc / (double){red.count}" if red.op == "mean" else "acc"
        lines.append(f"{pad}{out_ix} = ({out_t})({value});")
    elif family == "vector_norm":
        p = float(red.attrs.get("p", 2.0))
        size = f"fabs((double){x})"
        if math.isinf(p):        # NaN-propagating max (min) of |x|
            cmp = ">" if p > 0 else "<"
            lines.append(f"{pad}double acc = {'0' if p > 0 else 'INFINITY'};")
            reduce_loop(True, [f"acc = ({size} {cmp} acc || {x} != {x}) ? {size} : acc;"], None)
            value = "acc"
        else:
            term = {0.0: f"({x} != 0)", 1.0: size, 2.0: f"(double){x} * (double){x}"}.get(p, f"pow({size}, {p!r})")
            lines.append(f"{pad}double acc = 0;")
            reduce_loop(True, [f"acc += {term};"], "reduction(+:acc)")
            value = "acc" if p in (0.0, 1.0) else "sqrt(acc)" if p == 2.0 else f"pow(acc, {1.0 / p!r})"
        lines.append(f"{pad}{out_ix} = ({out_t})({value});")
    elif family == "extreme":
        greater = _GREATER[red.op]
        init = literal(float("-inf") if greater else float("inf"), red.in_dtype) if is_float else \
            (f"INT64_MIN" if greater else "INT64_MAX")
        cmp = ">" if greater else "<"
        lines.append(f"{pad}{in_t if is_float else acc_t} acc = {init};")
        nan = f" || {x} != {x}" if is_float else ""
        reduce_loop(True, [f"acc = ({x} {cmp} acc{nan}) ? {x} : acc;"], None)
        lines.append(f"{pad}{out_ix} = ({out_t})acc;")
    elif family == "arg":
        greater = _GREATER[red.op]
        init = literal(float("-inf") if greater else float("inf"), red.in_dtype) if is_float else \
            (f"INT64_MIN" if greater else "INT64_MAX")
        cmp = ">" if greater else "<"
        lines.append(f"{pad}{in_t if is_float else acc_t} best = {init}; int64_t best_k = 0, k = 0;")
        nan = f" || ({x} != {x} && best == best)" if is_float else ""
        first = "k == 0 || " if not is_float else ""
        reduce_loop(True, [f"if ({first}{x} {cmp} best{nan}) {{ best = {x}; best_k = k; }}", "k++;"], None)
        lines.append(f"{pad}{out_ix} = best_k;")
    elif family == "moments":
        correction = red.attrs.get("correction", 1)
        lines.append(f"{pad}double acc = 0, sq = 0;")
        reduce_loop(True, [f"acc += {x};"], "reduction(+:acc)")
        lines.append(f"{pad}const double mean = acc / (double){red.count};")
        reduce_loop(False, [f"sq += ((double){x} - mean) * ((double){x} - mean);"], "reduction(+:sq)")
        dof = red.count - correction
        var = f"sq / (double){dof}" if dof > 0 else "(double)NAN"
        value = f"sqrt({var})" if red.op == "std" else var
        lines.append(f"{pad}{out_ix} = ({out_t})({value});")
    elif family == "logsumexp":
        lines.append(f"{pad}double peak = -INFINITY, s = 0;")
        reduce_loop(True, [f"peak = ((double){x} > peak || {x} != {x}) ? (double){x} : peak;"], None)
        lines.append(f"{pad}if (isinf(peak)) peak = 0;   /* all -inf rows stay -inf, not nan */")
        reduce_loop(False, [f"s += exp((double){x} - peak);"], "reduction(+:s)")
        lines.append(f"{pad}{out_ix} = ({out_t})(log(s) + peak);")
    elif family == "normalize":
        lines.append(f"{pad}double peak = -INFINITY, s = 0;")
        reduce_loop(True, [f"peak = ((double){x} > peak || {x} != {x}) ? (double){x} : peak;"], None)
        lines.append(f"{pad}if (isinf(peak)) peak = 0;   /* an all -inf row gives nan/-inf, not an error */")
        reduce_loop(False, [f"s += exp((double){x} - peak);"], "reduction(+:s)")
        out_elem = f"out{red.out_arg}[{_index(red.out_strides, loop_vars)}]"
        if red.op == "softmax":
            reduce_loop(False, [f"{out_elem} = ({out_t})(exp((double){x} - peak) / s);"], None)
        else:
            lines.append(f"{pad}const double log_s = log(s);")
            reduce_loop(False, [f"{out_elem} = ({out_t})((double){x} - peak - log_s);"], None)
    else:  # pragma: no cover - C_REDUCE lists every family above
        raise KeyError(red.op)
    _close_loops(n_kept, pad, lines)
    return lines


def render_module(kernels: list[Kernel]) -> str:
    """One translation unit holding every kernel of a graph (one compiler run per graph). No
    graph or module name goes in: the sandbox compiles this text (description.py)."""
    return "/* Dagscope generated kernels */\n" + PRELUDE + "\n" + "\n".join(render_kernel(k) for k in kernels)


_CALL = re.compile(r"\b(ds_\w+)\(")
# the prelude's helper blocks (the first block is the #includes) and the helpers each one calls
_HELPER_BLOCKS = [(block, set(_CALL.findall(block))) for block in PRELUDE.split("\n\n")[1:]]


def helpers_used(source: str) -> str:
    """The prelude's helper definitions (ds_tanhf...) a kernel's source calls, with their comments,
    so the source shown for one kernel reads on its own."""
    called = set(_CALL.findall(source))
    keep = [block for block, names in _HELPER_BLOCKS if names & called]
    return "\n\n".join(keep) + ("\n\n" if keep else "")


def render_for_display(kernel: Kernel) -> str:
    """One kernel as the run record shows it: the helpers it calls, then its function."""
    body = render_kernel(kernel)
    return helpers_used(body) + body
