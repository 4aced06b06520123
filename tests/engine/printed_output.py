"""Comparing what a program printed with what the real library printed for it.

The text between the numbers must be the same; every number must be equal within one tolerance,
stated here once:

    |ours - theirs| <= RTOL * max(|ours|, |theirs|) + floor

where `floor` is FLOAT32_ATOL for a number inside a tensor's printout (`tensor(...)`: float32
values, whose last bits differ with the order of a sum, and whose cancellations near zero leave
a few float32 epsilons of an O(1) operand) and nothing for a number printed by Python itself
(`{'lr': 1e-05}`, `loss 0.5`), which must agree to RTOL. A tensor's printout also rounds each
value to its last printed digit (`tensor([0.1235])` for 0.12345 on one side, 0.12344 on the
other), so there, and only there, one unit in that digit is allowed as well.
Integers (`epoch 10`, `tensor([1, 2])`, `torch.Size([3])`) and nan/inf must be equal as text; a
zero's sign is not compared.
"""
from __future__ import annotations

import difflib
import math
import re

import pytest

RTOL = 1e-4
FLOAT32_ATOL = 1e-6

# A printed number: 12, -0.5000, 1.2346e+05, nan, inf.
NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|\bnan\b|-?\binf\b")
# Dagscope prints a grad_fn as `<MulBackward0 object>`, PyTorch adds its address (` at 0x7f...`).
ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
_TENSOR_OPEN = re.compile(r"\btensor\(")
# A zero's sign: `-0.0000e+00` where another build prints ` 0.0000e+00` (a float32 result that
# underflowed from the other side); PyTorch pads a positive number with the space the sign takes.
_NEGATIVE_ZERO = re.compile(r"-(?=0(?:\.0*)?(?:[eE][-+]?\d+)?(?![\d.eE]))")


def _tensor_spans(text: str) -> list[tuple[int, int]]:
    """[start, end) of each `tensor(...)` printout, to its matching parenthesis."""
    spans = []
    for match in _TENSOR_OPEN.finditer(text):
        if spans and match.start() < spans[-1][1]:
            continue                      # nested (a tensor inside another's printout)
        depth, i = 1, match.end()
        while i < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        spans.append((match.start(), i))
    return spans


def _numbers(text: str) -> list[tuple[str, bool]]:
    """Each printed number, and whether it lies inside a tensor's printout."""
    spans = _tensor_spans(text)
    return [(m.group(), any(a <= m.start() < b for a, b in spans)) for m in NUMBER.finditer(text)]


def last_digit_unit(token: str) -> float:
    """One unit in the last printed digit: a value that rounds the other way differs by this much."""
    mantissa, _, exponent = token.lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    if not decimals and not exponent:
        return 0.0          # an integer, or PyTorch's `2.` for a whole float: exact
    return 10.0 ** (int(exponent or 0) - decimals)


def _is_integer(token: str) -> bool:
    return not any(c in token for c in ".eEna")      # no point, exponent, nan or inf


def numbers_agree(ours: str, theirs: str, in_tensor: bool = False, atol: float = 0.0) -> bool:
    if ours == theirs:
        return True
    if _is_integer(ours) or _is_integer(theirs):
        return False
    a, b = float(ours), float(theirs)
    if not (math.isfinite(a) and math.isfinite(b)):
        return False
    slack = RTOL * max(abs(a), abs(b)) + atol
    if in_tensor:
        slack += max(FLOAT32_ATOL, last_digit_unit(ours), last_digit_unit(theirs))
    return abs(a - b) <= slack * (1 + 1e-9)         # (the decimal units are not exact in binary)


def why_not_agree(ours: str, theirs: str, atol: float = 0.0) -> str | None:
    """None if the two printouts agree, else the first difference, in words. `atol` is an absolute
    slack for every number, Python's own printouts included: only for a program whose entry says why
    (the corpus' FLOAT32_NOISE: a value that is float32 noise around zero)."""
    ours, theirs = (_NEGATIVE_ZERO.sub(" ", ADDRESS.sub("", text)) for text in (ours, theirs))
    if NUMBER.split(ours) != NUMBER.split(theirs):
        return "the text between the numbers differs"
    a, b = _numbers(ours), _numbers(theirs)
    if len(a) != len(b):
        return "a different count of numbers"
    for (x, in_tensor), (y, _) in zip(a, b):
        if not numbers_agree(x, y, in_tensor, atol):
            return f"{x} differs from {y}" + (" (in a tensor's printout)" if in_tensor else "")
    return None


def outputs_agree(ours: str, theirs: str) -> bool:
    return why_not_agree(ours, theirs) is None


def assert_printouts_agree(ours: str, theirs: str, what: str) -> None:
    """Fail with the first difference and a unified diff when Dagscope's printout (`ours`) does not
    agree with `what` printed (`theirs`): the sweeps' one check against a library's output."""
    why = why_not_agree(ours, theirs)
    if why:
        diff = "\n".join(difflib.unified_diff(theirs.splitlines(), ours.splitlines(), what, "Dagscope",
                                              lineterm=""))
        pytest.fail(f"Dagscope's output differs from {what} ({why}):\n{diff}")
