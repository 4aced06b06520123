"""Printing tensors exactly as PyTorch does (torch/_tensor_str.py's rules), with its print options."""
from __future__ import annotations

import dataclasses
import math

import numpy as np

from engine.compat import torch_dtypes


@dataclasses.dataclass
class PrintOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


OPTIONS = PrintOptions()
_PROFILES = {"default": dict(precision=4, threshold=1000, edgeitems=3, linewidth=80),
             "short": dict(precision=2, threshold=1000, edgeitems=2, linewidth=80),
             "full": dict(precision=4, threshold=math.inf, edgeitems=3, linewidth=80)}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None,
                     sci_mode=None) -> None:
    """torch.set_printoptions: a profile first, then each option given; sci_mode is always set
    (None lets the values decide), as in PyTorch."""
    for name, value in _PROFILES.get(profile, {}).items():     # PyTorch ignores an unknown profile
        setattr(OPTIONS, name, value)
    for name, value in (("precision", precision), ("threshold", threshold), ("edgeitems", edgeitems),
                        ("linewidth", linewidth)):
        if value is not None:
            setattr(OPTIONS, name, value)
    OPTIONS.sci_mode = sci_mode


def reset_printoptions() -> None:
    """PyTorch's defaults again (each run starts from them)."""
    set_printoptions(profile="default")


class _Formatter:
    """torch/_tensor_str.py's _Formatter: the width, fixed or scientific notation, and whether a float
    tensor holds only whole numbers, all decided from its nonzero finite values (so `0.`, `-0.`, `nan`
    and `inf` never widen a column)."""

    def __init__(self, values: np.ndarray):
        self.floating = values.dtype.kind == "f"
        self.precision = OPTIONS.precision
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        flat = values.reshape(-1)
        if not self.floating:
            self.max_width = max((len(self._plain(v)) for v in flat), default=1)
            return
        finite = flat[np.isfinite(flat)].astype(np.float64)
        nonzero = finite[finite != 0]
        if nonzero.size == 0:
            return
        magnitudes = np.abs(nonzero)
        hi, lo = magnitudes.max(), magnitudes.min()
        self.int_mode = bool(np.all(np.ceil(nonzero) == nonzero))
        self.sci_mode = (bool(hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4) if OPTIONS.sci_mode is None
                         else bool(OPTIONS.sci_mode))
        if self.sci_mode:
            self.max_width = max(len(f"{v:.{self.precision}e}") for v in nonzero.tolist())
        elif self.int_mode:
            self.max_width = max(len(f"{v:.0f}") + 1 for v in nonzero.tolist())
        else:
            self.max_width = max(len(f"{v:.{self.precision}f}") for v in nonzero.tolist())

    def _plain(self, v) -> str:
        return str(bool(v)) if isinstance(v, (bool, np.bool_)) else str(int(v))

    def format(self, v) -> str:
        if not self.floating:
            text = self._plain(v)
        else:
            v = float(v)
            if self.sci_mode:
                text = f"{v:{self.max_width}.{self.precision}e}"
            elif self.int_mode:
                text = f"{v:.0f}" + ("" if math.isinf(v) or math.isnan(v) else ".")
            else:
                text = f"{v:.{self.precision}f}"
        return text.rjust(self.max_width)


def _summarize(a: np.ndarray, edge: int) -> np.ndarray:
    """The values PyTorch looks at when a tensor is summarized (edge items of every dim)."""
    if a.ndim == 0:
        return a.reshape(1)
    if a.shape[0] > 2 * edge:
        a = np.concatenate([a[:edge], a[-edge:]])
    return np.concatenate([_summarize(x, edge).reshape(-1) for x in a]) if a.ndim > 1 else a


def _vector(a, fmt: _Formatter, indent: int, summarize: bool) -> str:
    edge = OPTIONS.edgeitems
    per_line = max(1, int(math.floor((OPTIONS.linewidth - indent) / (fmt.max_width + 2))))
    if summarize and not edge:
        items = ["..."]
    elif summarize and a.shape[0] > 2 * edge:
        items = [fmt.format(v) for v in a[:edge]] + [" ..."] + [fmt.format(v) for v in a[-edge:]]
    else:
        items = [fmt.format(v) for v in a]
    lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _tensor_str(a, fmt: _Formatter, indent: int, summarize: bool) -> str:
    if a.ndim == 0:
        return fmt.format(a.item())
    if a.ndim == 1:
        return _vector(a, fmt, indent, summarize)
    edge = OPTIONS.edgeitems
    if summarize and a.shape[0] > 2 * edge:
        parts = [_tensor_str(a[i], fmt, indent + 1, summarize) for i in range(edge)] + ["..."] + \
                [_tensor_str(a[i], fmt, indent + 1, summarize) for i in range(len(a) - edge, len(a))]
    else:
        parts = [_tensor_str(a[i], fmt, indent + 1, summarize) for i in range(a.shape[0])]
    return "[" + ("," + "\n" * (a.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def array_str(a: np.ndarray, indent: int) -> str:
    summarize = a.size > OPTIONS.threshold
    if a.size == 0:
        return "[]"
    if summarize and not OPTIONS.edgeitems and a.ndim > 1:
        fmt = _Formatter(np.zeros(0, a.dtype))          # PyTorch looks at no values then
    else:
        fmt = _Formatter(_summarize(a, OPTIONS.edgeitems) if summarize else a)
    return _tensor_str(a, fmt, indent, summarize)


def _add_suffixes(text: str, suffixes: list[str], indent: int) -> str:
    """As PyTorch: a suffix that would pass the line width goes on a line of its own (the length of
    the last line is PyTorch's own count, two more than its characters on a one-line tensor)."""
    parts = [text]
    last_line_len = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line_len + len(suffix) + 2 > OPTIONS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line_len = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line_len += len(suffix) + 2
    return "".join(parts) + ")"


def tensor_repr(t, prefix: str = "tensor(") -> str:
    a = t.array
    suffixes = []
    body = prefix + array_str(a, len(prefix))
    dt = a.dtype
    if a.size == 0:
        # An empty tensor shows its shape (unless 1-D) and any dtype but the default float.
        if a.ndim != 1:
            suffixes.append(f"size={tuple(a.shape)}")
        if dt != np.float32:
            suffixes.append(f"dtype={torch_dtypes.from_numpy(dt)}")
    else:
        if not OPTIONS.edgeitems:
            suffixes.append(f"size={tuple(a.shape)}")
        if not (dt == np.float32 or dt == np.int64 or dt == np.bool_):
            suffixes.append(f"dtype={torch_dtypes.from_numpy(dt)}")
    if t.grad_fn is not None:
        suffixes.append(f"grad_fn=<{t.grad_fn.name}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(body, suffixes, len(prefix))
