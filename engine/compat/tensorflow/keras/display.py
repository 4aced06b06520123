"""What Keras prints: the progress line of fit / evaluate / predict and `model.summary()`'s table.

Progress (verbose=1): Keras 3 redraws one line in place with ANSI colours while it runs; Dagscope
prints only each line's final state, without the escape codes: `Epoch 1/5` then
`32/32 ━━━━━━━━━━━━━━━━━━━━ 0s 0s/step - accuracy: 0.5000 - loss: 0.6931`. The timing part is
rendered as Keras renders a step that took no time ("0s 0s/step"), so a program prints the same
every run (real Keras prints the elapsed seconds and the time per step it measured).
verbose=2 prints `32/32 - 0s - 0s/step - accuracy: ...` once per epoch, as Keras does.

Summary: Keras draws it with rich at the terminal's width less 4 (76 columns for the 80 a program
without a terminal gets), with its column positions (0.45, 0.80, 1.0; with a 'Connected to'
column 0.3, 0.56, 0.74, 1.0); the widths below are what rich's table layout makes of them, and
text longer than its column wraps at spaces and ends in '…' when one word is too long, as rich does.
"""
from __future__ import annotations

import math


def metric_text(value) -> str:
    value = float(value)
    return f"{value:.4f}" if abs(value) > 1e-3 else f"{value:.4e}"


def progress_line(current: int, target, values: list, verbose: int = 1, final: bool = True) -> str:
    """One finished progress bar line (what the terminal shows when the epoch is done)."""
    parts = "".join(f" - {k}: {metric_text(v)}" for k, v in values)
    if target is None:
        return f"{current:7d}/Unknown 0s 0s/step{parts}"
    digits = int(math.log10(target)) + 1 if target > 0 else 1
    count = f"%{digits}d/%d" % (current, target)
    if verbose == 2:
        parts = "".join(f" - {k}: {metric_text(v) if float(v) > 1e-3 else f'{float(v):.4e}'}" for k, v in values)
        return f"{count} - 0s - 0s/step{parts}"
    filled = int(20 * current / target) if target else 20
    return f"{count} {'━' * filled}{'━' * (20 - filled)} 0s 0s/step{parts}"


# ---- summary ----------------------------------------------------------------------------------------

def _column_widths(line_length: int, positions: list[float]) -> list[int]:
    """Keras' widths from positions, then rich's table layout: each column's width plus its padding
    of 2, reduced evenly (rich's ratio_reduce with equal ratios) to fit the line less its borders."""
    widths, current = [], 0
    for pos in positions:
        w = int(pos * line_length) - current
        widths.append(w)
        current += w
    padded = [w + 2 for w in widths]
    available = line_length - (len(widths) + 1)
    excess = sum(padded) - available
    if excess > 0:
        remaining, total_ratio, out = excess, len(padded), []
        for w in padded:
            cut = min(w, round(remaining / total_ratio))
            out.append(w - cut)
            remaining -= cut
            total_ratio -= 1
        padded = out
    return [w - 2 for w in padded]


def _wrap(text: str, width: int) -> list[str]:
    lines, line = [], ""
    for word in text.split(" "):
        if len(word) > width:
            if line:
                lines.append(line)
            lines.append(word[:width - 1] + "…")
            line = ""
            continue
        candidate = f"{line} {word}" if line else word
        if len(candidate) <= width:
            line = candidate
        else:
            lines.append(line)
            line = word
    if line or not lines:
        lines.append(line)
    return lines


def table(header: list[str], rows: list[list[str]], align: list[str], widths: list[int]) -> list[str]:
    def border(left, mid, right, fill):
        return left + mid.join(fill * (w + 2) for w in widths) + right

    def cells(values, sep):
        wrapped = [_wrap(v, w) for v, w in zip(values, widths)]
        height = max(len(c) for c in wrapped)
        out = []
        for i in range(height):
            parts = []
            for c, w, a in zip(wrapped, widths, align):
                text = c[i] if i < len(c) else ""
                parts.append(" " + (text.rjust(w) if a == "right" else text.ljust(w)) + " ")
            out.append(sep + sep.join(parts) + sep)
        return out
    lines = [border("┏", "┳", "┓", "━")] + cells(header, "┃") + [border("┡", "╇", "┩", "━")]
    for i, row in enumerate(rows):
        if i:
            lines.append(border("├", "┼", "┤", "─"))
        lines.extend(cells(row, "│"))
    lines.append(border("└", "┴", "┘", "─"))
    return lines


def memory(bytes_: float) -> str:
    for unit in ["B", "KB", "MB", "GB", "TB", "PB"]:
        if bytes_ / 1024 < 1:
            return f"{bytes_:.2f} {unit}"
        bytes_ /= 1024
    return f"{bytes_:.2f} PB"


def summary_text(name: str, rows: list[list[str]], connected: bool, counts: dict, line_length=None,
                 positions=None) -> str:
    if connected:
        line_length = line_length or 76      # min(108, 80 - 4)
        positions = positions or [0.3, 0.56, 0.74, 1.0]
        header = ["Layer (type)", "Output Shape", "Param #", "Connected to"]
        align = ["left", "left", "right", "left"]
    else:
        line_length = line_length or 76      # min(88, 80 - 4)
        positions = positions or [0.45, 0.80, 1.0]
        header = ["Layer (type)", "Output Shape", "Param #"]
        align = ["left", "left", "right"]
    widths = _column_widths(line_length, positions)
    lines = [f'Model: "{name}"'] + table(header, rows, align, widths)
    lines.append(f" Total params: {counts['total']:,} ({memory(counts['total_bytes'])})")
    lines.append(f" Trainable params: {counts['trainable']:,} ({memory(counts['trainable_bytes'])})")
    lines.append(f" Non-trainable params: {counts['non_trainable']:,} ({memory(counts['non_trainable_bytes'])})")
    if counts.get("optimizer") is not None:
        lines.append(f" Optimizer params: {counts['optimizer']:,} ({memory(counts['optimizer_bytes'])})")
    return "\n".join(lines)
