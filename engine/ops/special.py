"""erf on numpy arrays (numpy has none and scipy is not a dependency): Cephes' rational approximations.

Accurate to ~1e-16 in float64 over the whole line, so finite-difference checks of gelu and erf hold.

The numpy evaluation makes some thirty passes over the array (erfc's two branches everywhere); the
eager core hands this module engine/native's C loops (`use_native`), which compute erf, and GELU's
forward and backward around it, element by element in one pass with the same operations in the same
order, so the same bits (tests/engine/native/test_native_erf.py). `erf_numpy` stays the reference.
"""
from __future__ import annotations

import numpy as np

# Past this |x|, erfc(|x|) < 1e-300 and 1 - erfc is exactly 1; the polynomials of an infinite (or, in
# float64, huge) x are inf / inf, which made erf(inf) NaN where PyTorch gives 1. fastops.c's ERFC_ZERO.
ERFC_ZERO = 27.0

# erf(x) = x T(x^2) / U(x^2) for |x| < 1
_T = (9.60497373987051638749e0, 9.00260197203842689217e1, 2.23200534594684319226e3,
      7.00332514112805075473e3, 5.55923013010394962768e4)
_U = (1.0, 3.35617141647503099647e1, 5.21357949780152679795e2, 4.59432382970980127987e3,
      2.26290000613890934246e4, 4.92673942608635921086e4)
# erfc(x) = exp(-x^2) P(x) / Q(x) for 1 <= x < 8, exp(-x^2) R(x) / S(x) for x >= 8
_P = (2.46196981473530512524e-10, 5.64189564831068821977e-1, 7.46321056442269912687e0,
      4.86371970985681366614e1, 1.96520832956077098242e2, 5.26445194995477358631e2,
      9.34528527171957607540e2, 1.02755188689515710272e3, 5.57535335369399327526e2)
_Q = (1.0, 1.32281951154744992508e1, 8.67072140885989742329e1, 3.54937778887819891062e2,
      9.75708501743205489753e2, 1.82390916687909736289e3, 2.24633760818710981792e3,
      1.65666309194161350182e3, 5.57535340817727675546e2)
_R = (5.64189583547755073984e-1, 1.27536670759978104416e0, 5.01905042251180477414e0,
      6.16021097993053585195e0, 7.40974269950448939160e0, 2.97886665372100240670e0)
_S = (1.0, 2.26052863220117276590e0, 9.39603524938001434673e0, 1.20489539808096656605e1,
      1.70814450747565897222e1, 9.60896809063285878198e0, 3.36907645100081516050e0)


def _horner(x: np.ndarray, coefficients) -> np.ndarray:
    acc = np.full_like(x, coefficients[0])
    for c in coefficients[1:]:
        acc = acc * x + c
    return acc


_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_native = None     # engine/native's module, when use_native took it (it sits above this layer)


def use_native(module) -> str:
    """Run erf and GELU in `module`'s loops (fastops.c's erf_into, gelu_into, gelu_backward_into), or
    with None, in numpy; returns which. The C erf calls libm's exp, which numpy's float64 exp is on
    most CPUs but not all (its own AVX-512 loop), so a probe over erf's three ranges compares them
    first. GELU adds only arithmetic, the same in both."""
    global _native
    _native = None
    if module is None:
        return "numpy"
    probe = np.concatenate([np.linspace(-12.0, 12.0, 4801), np.geomspace(1e-300, 30.0, 500),
                            np.random.default_rng(0).normal(0.0, 3.0, 2000), [0.0, -0.0, np.inf, -np.inf, np.nan]])
    for dtype in (_F64, _F32):
        x = np.concatenate([probe, -probe]).astype(dtype)
        out = np.empty_like(x)
        module.erf_into(x, out)
        if not same_bits(out, erf_numpy(x)):
            return f"numpy: fastops' erf differs from numpy's ({dtype.name}) on this machine"
    _native = module
    return "C (engine/native/fastops.c)"


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    """The same dtype, shape and bits, a NaN for a NaN: numpy's own passes give a NaN the sign of its
    input or not depending on its place in the array (a vector lane or the scalar tail), so a NaN's
    sign and payload are not part of the result."""
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    nan = np.isnan(a)
    return bool(np.array_equal(nan, np.isnan(b)) and a[~nan].tobytes() == b[~nan].tobytes())


def _fusable(*arrays) -> bool:
    """Arrays the C loops take: C-contiguous float32 or float64 ndarrays of one dtype and shape."""
    first = arrays[0]
    return all(type(a) is np.ndarray and a.dtype is first.dtype and a.shape == first.shape and a.flags.c_contiguous
               for a in arrays) and (first.dtype == _F32 or first.dtype == _F64)


def erf(x: np.ndarray) -> np.ndarray:
    """erf elementwise, computed in float64 and returned in x's float dtype."""
    if _native is not None and _fusable(x):
        out = np.empty_like(x)
        _native.erf_into(x, out)
        return out
    return erf_numpy(x)


def gelu(x: np.ndarray) -> np.ndarray | None:
    """GELU's forward (engine/ops/elementwise.py's _gelu_forward) in one C pass, or None: no C loop here."""
    if _native is None or not _fusable(x):
        return None
    out = np.empty_like(x)
    _native.gelu_into(x, out)
    return out


def gelu_backward(g: np.ndarray, x: np.ndarray) -> np.ndarray | None:
    """GELU's gradient (elementwise.py's _gelu_vjp on numpy arrays) in one C pass after numpy's
    exp(x * x * -0.5) (numpy's exp: its float32 one is its own vectorised loop, not libm's), or None."""
    if _native is None or not _fusable(g, x):
        return None
    ex = np.multiply(x, x, out=np.empty_like(x))        # (an array for 0-d x too, where numpy returns a scalar)
    np.multiply(ex, x.dtype.type(-0.5), out=ex)
    np.exp(ex, out=ex)
    _native.gelu_backward_into(g, x, ex, ex)
    return ex


def erf_numpy(x: np.ndarray) -> np.ndarray:
    """erf elementwise in numpy: the reference the C loop is checked against."""
    x64 = np.asarray(x, dtype=np.float64)
    ax = np.abs(x64)
    z = x64 * x64
    small = x64 * _horner(z, _T) / _horner(z, _U)
    mid = np.exp(-z) * _horner(ax, _P) / _horner(ax, _Q)
    far = np.exp(-z) * _horner(ax, _R) / _horner(ax, _S)
    erfc_abs = np.where(ax < 8.0, mid, np.where(ax < ERFC_ZERO, far, 0.0))
    large = np.sign(x64) * (1.0 - erfc_abs)
    out = np.where(ax < 1.0, small, large)
    return out.astype(x.dtype if np.asarray(x).dtype.kind == "f" else np.float32, copy=False)
