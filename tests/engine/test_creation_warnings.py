"""torch.tensor(t) of a tensor warns as PyTorch 2.13 does: its UserWarning on the run's stderr,
at the user's line, once per line; as_tensor and plain data stay silent. test_the_same_warnings_as_pytorch
runs PROGRAM under real torch where it is installed: the stored words, lines and printout are its own."""
import re
import subprocess
import sys
import warnings

import pytest

COPY_WARNING = ("UserWarning: To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() "
                "or sourceTensor.detach().clone().requires_grad_(True), rather than {call}(sourceTensor).")

PROGRAM = """import torch
t = torch.ones(2, requires_grad=True)
u = torch.tensor(t)
v = torch.tensor([1.0, 2.0])
w = torch.tensor(v, dtype=torch.float64)
def copy(a):
    return torch.tensor(a)
for i in range(3):
    copy(t)
n = t.new_tensor(v)
a = torch.as_tensor(v, dtype=torch.float64)
b = torch.tensor([v[0], v[1]])
print(u.requires_grad, u.grad_fn, w.dtype, n.requires_grad, b)
"""
# (line, call) of each warning: line 9's loop warns once, at the line inside copy() that called torch
EXPECTED = [(3, "torch.tensor"), (5, "torch.tensor"), (7, "torch.tensor"), (10, "tensor.new_tensor")]
PYTORCH_STDOUT = "False None torch.float64 False tensor([1., 2.])\n"


def expected_stderr(filename: str) -> str:
    """Python's warning lines for EXPECTED: `file:line: UserWarning: ...` and the source line under it."""
    source = PROGRAM.splitlines()
    return "".join(f"{filename}:{line}: {COPY_WARNING.format(call=call)}\n  {source[line - 1].strip()}\n"
                   for line, call in EXPECTED)


def warned(stderr: str, filename: str) -> list[tuple[int, str]]:
    found = re.findall(rf"^{re.escape(filename)}:(\d+): UserWarning: To copy construct .* rather than ([\w.]+)\(sourceTensor\)\.$",
                       stderr, flags=re.M)
    return [(int(line), call) for line, call in found]


def test_copy_construct_warns_at_the_users_line_once_per_line(run):
    rec = run(PROGRAM)
    assert rec["ok"], rec["error"]
    assert rec["stdout"] == PYTORCH_STDOUT
    assert warned(rec["stderr"], "<dagscope>") == EXPECTED
    assert rec["stderr"] == expected_stderr("<dagscope>")      # PyTorch's, with the run's file name
    lines = rec["stderr"].splitlines()
    assert lines[0] == "<dagscope>:3: " + COPY_WARNING.format(call="torch.tensor")
    assert lines[1] == "  u = torch.tensor(t)"
    assert lines[-2] == "<dagscope>:10: " + COPY_WARNING.format(call="tensor.new_tensor")
    assert "engine" not in rec["stderr"]


def test_plain_data_and_as_tensor_do_not_warn(run):
    rec = run("import torch\nv = torch.tensor([1.0, 2.0])\nx = torch.as_tensor(v)\n"
              "y = torch.as_tensor(v, dtype=torch.float64)\nz = torch.tensor([v[0], 3.0])\nprint(y.dtype)")
    assert rec["ok"] and rec["stdout"] == "torch.float64\n"
    assert rec["stderr"] == ""


def test_the_engine_used_as_a_library_warns_at_its_callers_line():
    from engine import creation
    source = creation.ones(3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        copy = creation.tensor(source)
        line = sys._getframe().f_lineno - 1
    assert [(w.category, w.filename, w.lineno) for w in caught] == [(UserWarning, __file__, line)]
    assert str(caught[0].message) == COPY_WARNING.format(call="torch.tensor").removeprefix("UserWarning: ")
    assert copy.array is not source.array and copy.array.tolist() == [1.0, 1.0, 1.0]


@pytest.mark.torch
def test_the_same_warnings_as_pytorch(real_torch, tmp_path):
    # a child: Python's default filter shows a warning once per line per process, which a test cannot reset
    script = tmp_path / "program.py"
    script.write_text(PROGRAM)
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, check=True)
    assert out.stderr == expected_stderr(str(script))
    assert out.stdout == PYTORCH_STDOUT
