"""Printing tensors exactly as PyTorch does (torch/_tensor_str.py's rules, precision 4)."""
from __future__ import annotations

import math

import numpy as np

PRECISION = 4
LINEWIDTH = 80
THRESHOLD = 1000
EDGEITEMS = 3


class _Formatter:
    def __init__(self, values: np.ndarray):
        self.kind = values.dtype.kind
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        flat = values.reshape(-1)
        if self.kind == "b":
            self.max_width = max((len(str(bool(v))) for v in flat), default=1)
            return
        if self.kind in "iu":
            self.max_width = max((len(str(int(v))) for v in flat), default=1)
            return
        finite = flat[np.isfinite(flat)].astype(np.float64)
        if finite.size == 0:
            self.max_width = max((len(self._fmt_special(v)) for v in flat), default=1)
            return
        nonzero = np.abs(finite[finite != 0])
        self.int_mode = bool(np.all(np.ceil(finite) == finite))
        if self.int_mode:
            if nonzero.size and nonzero.max() > 1e8:
                self.sci_mode = True
        elif nonzero.size:
            hi, lo = nonzero.max(), nonzero.min()
            if hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4:
                self.sci_mode = True
        self.max_width = max(len(self._fmt(v)) for v in flat)

    @staticmethod
    def _fmt_special(v) -> str:
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")

    def _fmt(self, v) -> str:
        if self.kind == "b":
            return str(bool(v))
        if self.kind in "iu":
            return str(int(v))
        v = float(v)
        if not math.isfinite(v):
            return self._fmt_special(v)
        if self.sci_mode:
            return f"{v:.{PRECISION}e}"
        if self.int_mode:
            return f"{v:.0f}."
        return f"{v:.{PRECISION}f}"

    def format(self, v) -> str:
        return self._fmt(v).rjust(self.max_width)


def _summarize(a: np.ndarray) -> np.ndarray:
    """The values PyTorch looks at when a tensor is summarized (edge items of every dim)."""
    if a.ndim == 0:
        return a.reshape(1)
    if a.shape[0] > 2 * EDGEITEMS:
        a = np.concatenate([a[:EDGEITEMS], a[-EDGEITEMS:]])
    return np.concatenate([_summarize(x).reshape(-1) for x in a]) if a.ndim > 1 else a


def _vector(a, fmt: _Formatter, indent: int, summarize: bool) -> str:
    per_line = max(1, int(math.floor((LINEWIDTH - indent) / (fmt.max_width + 2))))
    if summarize and a.shape[0] > 2 * EDGEITEMS:
        items = [fmt.format(v) for v in a[:EDGEITEMS]] + [" ..."] + [fmt.format(v) for v in a[-EDGEITEMS:]]
    else:
        items = [fmt.format(v) for v in a]
    lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _tensor_str(a, fmt: _Formatter, indent: int, summarize: bool) -> str:
    if a.ndim == 0:
        return fmt.format(a.item())
    if a.ndim == 1:
        return _vector(a, fmt, indent, summarize)
    if summarize and a.shape[0] > 2 * EDGEITEMS:
        parts = [_tensor_str(a[i], fmt, indent + 1, summarize) for i in range(EDGEITEMS)] + ["..."] + \
                [_tensor_str(a[i], fmt, indent + 1, summarize) for i in range(len(a) - EDGEITEMS, len(a))]
    else:
        parts = [_tensor_str(a[i], fmt, indent + 1, summarize) for i in range(a.shape[0])]
    return "[" + ("," + "\n" * (a.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def array_str(a: np.ndarray, indent: int) -> str:
    summarize = a.size > THRESHOLD
    if a.size == 0:
        return "[]"
    fmt = _Formatter(_summarize(a) if summarize else a)
    return _tensor_str(a, fmt, indent, summarize)


def tensor_repr(t, prefix: str = "tensor(") -> str:
    a = t.array
    suffixes = []
    body = array_str(a, len(prefix))
    if a.size == 0 and a.shape != (0,):
        suffixes.append(f"size={tuple(a.shape)}")
    dt = a.dtype
    if not (dt == np.float32 or dt == np.int64 or dt == np.bool_):
        from engine.compat import torch_dtypes
        suffixes.append(f"dtype={torch_dtypes.from_numpy(dt)}")
    if t.grad_fn is not None:
        suffixes.append(f"grad_fn=<{t.grad_fn.name}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    return prefix + body + "".join(", " + s for s in suffixes) + ")"
