"""Compatibility sweep: short programs a teacher would paste (tests/engine/torch_sweep/NN_name.py) print
what real PyTorch prints, numbers within 1e-4 relative.

What PyTorch 2.13 printed for each program is stored beside it (NN_name.out, object addresses left
out), so CI without torch still checks Dagscope against it. Where real torch is importable, the
programs also run through it now (one child process for all of them) and Dagscope is compared with
that, and the stored outputs with it.
Store the outputs again after changing a program:
    .venv/bin/python tests/engine/test_compat_sweep_torch.py --record
"""
from __future__ import annotations

import difflib
import importlib.util
import json
import math
import pathlib
import re
import subprocess
import sys

import pytest

SWEEP = pathlib.Path(__file__).with_name("torch_sweep")
PROGRAMS = sorted(p.stem for p in SWEEP.glob("*.py"))

# Programs that show a bug in a part of the engine this sweep's owner does not edit: each flips to
# a failure (strict xfail) once the bug is fixed, so the mark is then removed.
KNOWN_BUGS: dict[str, str] = {
    "330_print_lstm_outputs": "PyTorch's CPU LSTM runs each layer as one mkldnn_rnn_layer op: the output's grad_fn "
                              "is MkldnnRnnLayerBackward0; Dagscope's unrolled layer ends in a stack "
                              "(StackBackward0) and the ops have no way to name it otherwise",
    "338_sdpa_vs_manual_attention": "F.scaled_dot_product_attention (engine/nn/transformer.py) is composed of "
                                    "matmul/softmax ops: its output's grad_fn is UnsafeViewBackward0; PyTorch's CPU "
                                    "kernel is one op, ScaledDotProductFlashAttentionForCpuBackward0 (4-D, no "
                                    "dropout), which needs a registered sdpa op in engine/ops",
}

# PyTorch's child: runs each program in a fresh namespace and returns what it printed (or its error).
_PYTORCH_CHILD = r"""
import contextlib, io, json, sys
import torch
torch.set_num_threads(1)
results = {}
for name, code in json.load(sys.stdin):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            exec(compile(code, name + ".py", "exec"), {"__name__": "__main__"})
        except BaseException as exc:
            print(f"ERROR {type(exc).__name__}: {exc}")
    results[name] = out.getvalue()
json.dump(results, sys.stdout)
"""


def _source(name: str) -> str:
    return (SWEEP / f"{name}.py").read_text()


def _real_torch_available() -> bool:
    spec = importlib.util.find_spec("torch")
    return spec is not None and "engine" not in pathlib.Path(spec.origin or "").parts


def pytorch_outputs(names=PROGRAMS) -> dict[str, str]:
    payload = json.dumps([[n, _source(n)] for n in names])
    done = subprocess.run([sys.executable, "-c", _PYTORCH_CHILD], input=payload, capture_output=True,
                          text=True, timeout=600, check=True)
    return json.loads(done.stdout)


def dagscope_output(name: str) -> str:
    from engine.runner import run_user_code
    record = run_user_code(_source(name), {})
    error = record.get("error")
    if error:
        return record["stdout"] + f"ERROR {error['type']}: {error['message']}\n"
    return record["stdout"]


# A printed number: 12, -0.5000, 1.2346e+05, nan, inf. An object's address differs from run to run.
_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|\bnan\b|-?\binf\b")
# Dagscope prints a grad_fn as `<MulBackward0 object>`, PyTorch adds its address (` at 0x7f...`).
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def _last_digit_unit(token: str) -> float:
    """One unit in the last printed digit: a value that rounds the other way differs by this much."""
    mantissa, _, exponent = token.lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    if not decimals and not exponent:
        return 0.0          # an integer, or PyTorch's `2.` for a whole float: exact
    return 10.0 ** (int(exponent or 0) - decimals)


def _numbers_agree(ours: str, theirs: str) -> bool:
    if ours == theirs:
        return True
    a, b = float(ours), float(theirs)
    if math.isnan(a) or math.isnan(b) or math.isinf(a) or math.isinf(b):
        return False
    slack = max(1e-4 * max(abs(a), abs(b)), 1.01 * max(_last_digit_unit(ours), _last_digit_unit(theirs)))
    return abs(a - b) <= slack


def outputs_agree(ours: str, theirs: str) -> bool:
    """The same text between the numbers, and every number equal within 1e-4 relative (or one unit
    in the last printed digit, where a float32 sum's order tips the rounding)."""
    ours, theirs = _ADDRESS.sub("", ours), _ADDRESS.sub("", theirs)
    if _NUMBER.split(ours) != _NUMBER.split(theirs):
        return False
    a, b = _NUMBER.findall(ours), _NUMBER.findall(theirs)
    return len(a) == len(b) and all(_numbers_agree(x, y) for x, y in zip(a, b))


def _assert_agree(ours: str, theirs: str, what: str) -> None:
    if not outputs_agree(ours, theirs):
        diff = "\n".join(difflib.unified_diff(theirs.splitlines(), ours.splitlines(), what, "Dagscope",
                                              lineterm=""))
        pytest.fail(f"Dagscope's output differs from {what}:\n{diff}")


def _program_params():
    for name in PROGRAMS:
        marks = [pytest.mark.xfail(strict=True, reason=KNOWN_BUGS[name])] if name in KNOWN_BUGS else []
        yield pytest.param(name, id=name, marks=marks)


@pytest.mark.parametrize("name", list(_program_params()))
def test_prints_what_pytorch_printed(name):
    expected = (SWEEP / f"{name}.out").read_text()
    _assert_agree(dagscope_output(name), expected, "PyTorch 2.13's stored output")


@pytest.fixture(scope="module")
def live_pytorch():
    if not _real_torch_available():
        pytest.skip("real PyTorch is not installed")
    return pytorch_outputs()


@pytest.mark.torch
@pytest.mark.parametrize("name", list(_program_params()))
def test_prints_what_real_pytorch_prints(name, live_pytorch):
    _assert_agree(dagscope_output(name), live_pytorch[name], "real PyTorch")


@pytest.mark.torch
@pytest.mark.parametrize("name", PROGRAMS)
def test_stored_output_is_real_pytorchs(name, live_pytorch):
    assert (SWEEP / f"{name}.out").read_text() == _ADDRESS.sub("", live_pytorch[name])


# Names teachers use that Dagscope does not provide: each must fail as `unsupported`, naming itself.
UNSUPPORTED = [
    ("torch.cumprod(torch.ones(3), dim=0)", "torch.cumprod", None),
    ("torch.flip(torch.ones(3), [0])", "torch.flip", None),
    ("torch.linalg.svd(torch.eye(2))", "svd", None),
    ("F.pad(torch.ones(2, 2), (1, 1))", "torch.nn.functional.pad", None),
    ("F.interpolate(torch.ones(1, 1, 2, 2), scale_factor=2)", "torch.nn.functional.interpolate", None),
    ("nn.ConvTranspose2d(1, 1, 2)", "torch.nn.ConvTranspose2d", None),
    ("F.conv2d(torch.ones(1, 2, 5, 5), torch.ones(2, 2, 3, 3), dilation=2)", "dilation", None),
    ("F.conv2d(torch.ones(1, 2, 5, 5), torch.ones(2, 1, 3, 3), groups=2)", "groups", None),
    ("nn.Conv2d(2, 2, 3, dilation=2)(torch.ones(1, 2, 7, 7))", "dilation", None),
    ("nn.Conv2d(2, 2, 3, groups=2)(torch.ones(1, 2, 7, 7))", "groups", None),
    ("F.conv2d(torch.ones(1, 1, 4, 4), torch.ones(1, 1, 2, 2), padding='same')", "padding='same'", None),
    ("torch.einsum('ii->', torch.eye(3))", "einsum with a repeated subscript", None),
    ("torch.div(torch.tensor([-7, 7]), 2, rounding_mode='trunc')", "rounding_mode='trunc'", None),
    ("torch.addmm(torch.ones(2), torch.ones(2, 3), torch.ones(3, 2), beta=0.5)", "torch.addmm with beta", None),
    ("nn.MaxPool2d(2, ceil_mode=True)(torch.ones(1, 1, 5, 5))", "ceil_mode", None),
    ("nn.AvgPool2d(3, padding=1, count_include_pad=False)(torch.ones(1, 1, 5, 5))", "count_include_pad", None),
    ("import torchvision", "torchvision", None),
    ("from torchvision import datasets, transforms", "torchvision", None),
    ("torch.autograd.Function", None, None),   # supported: the check below must not flag it
    ("torch.ones(3).cumprod(0)", "cumprod", None),
    ("torch.ones(3).index_add(0, torch.tensor([0]), torch.ones(1))", "index_add", None),
    ("torch.ones(3).flip(0)", "flip", None),
    ("torch.ones(3).dot(torch.ones(3))", "dot", None),
]
_MULTI_OUTPUT_FUNCTION = """
class Split(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2, x * 3

    @staticmethod
    def backward(ctx, a, b):
        return a * 2 + b * 3

Split.apply(torch.ones(2, requires_grad=True))"""
UNSUPPORTED.append((_MULTI_OUTPUT_FUNCTION, "Split.forward returned 2 differentiable tensors", None))


def _unsupported_params():
    for i, (snippet, name, bug) in enumerate(UNSUPPORTED):
        marks = [pytest.mark.xfail(strict=True, reason=bug)] if bug else []
        yield pytest.param(snippet, name, id=f"{i}-{(name or 'supported').split('.')[-1]}", marks=marks)


@pytest.mark.parametrize("snippet,name", list(_unsupported_params()))
def test_names_outside_the_surface_fail_as_unsupported(run, snippet, name):
    record = run("import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n" + snippet)
    if name is None:
        assert record["error"] is None
        return
    assert record["error"] is not None and record["error"]["kind"] == "unsupported", record["error"]
    assert name in record["error"]["message"]


def test_comparison_tolerates_rounding_but_not_other_numbers():
    assert outputs_agree("tensor([0.1235, 2.])", "tensor([0.1234, 2.])")
    assert outputs_agree("<AddBackward0 object>", "<AddBackward0 object at 0x55aa>")
    assert not outputs_agree("tensor([0.1237, 2.])", "tensor([0.1234, 2.])")
    assert not outputs_agree("tensor([1., 2.])", "tensor([1., 2.], dtype=torch.float64)")
    assert not outputs_agree("tensor(nan)", "tensor(1.)")
    assert not outputs_agree("tensor([2., 3.])", "tensor([3., 3.])")


if __name__ == "__main__" and sys.argv[1:] == ["--record"]:
    for program, text in pytorch_outputs().items():
        (SWEEP / f"{program}.out").write_text(_ADDRESS.sub("", text))   # addresses vary run to run
        print(f"stored {program}.out")
