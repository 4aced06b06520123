"""A trace that reads values through .tolist() or .numpy() warns that it froze them, as PyTorch does
(test_the_stored_warning_and_printout_are_real_pytorchs traces the same function with real torch where
it is installed)."""
import contextlib
import io
import warnings

import pytest

TRACED_TOLIST = ("import torch\n\ndef f(x):\n    if x.tolist()[0] > 0:\n        return x * 2\n    return x - 1\n\n"
                 "t = torch.jit.trace(f, torch.tensor([1.0, 2.0]))\nprint(t(torch.tensor([-1.0, 2.0])))\n")
# PyTorch 2.13's TracerWarning says (in part), and what it printed: the frozen branch, not x - 1
FROZEN_WARNING = "Python list might cause the trace to be incorrect"
PYTORCH_PRINTED = "tensor([-2.,  4.])\n"


def test_tolist_in_a_branch_warns(run):
    rec = run(TRACED_TOLIST)
    assert rec["ok"], rec["error"]
    assert FROZEN_WARNING in rec["stderr"]     # where Python warns
    assert rec["stdout"].endswith(PYTORCH_PRINTED)


def test_numpy_in_a_scripted_function_is_refused_with_its_line(run):
    rec = run("import torch\n\n@torch.jit.script\ndef f(x):\n    if x.numpy()[0] > 0:\n        return x * 2\n"
              "    return x\n\nprint(f(torch.tensor([1.0])))\n")
    assert not rec["ok"]
    assert "NumPy array" in rec["error"]["message"]


@pytest.mark.torch
def test_the_stored_warning_and_printout_are_real_pytorchs(real_torch):
    printed = io.StringIO()
    with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(printed):
        warnings.simplefilter("always")
        exec(TRACED_TOLIST, {"__name__": "__main__"})
    assert printed.getvalue() == PYTORCH_PRINTED
    assert any(w.category is real_torch.jit.TracerWarning and FROZEN_WARNING in str(w.message) for w in caught)
