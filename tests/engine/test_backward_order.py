"""The order the backward walk runs nodes in: PyTorch's, run after run. Leaves whose gradients
are ready at once (every AccumulateGrad has the same priority) come out in the order PyTorch's
ready queue gives them, not by memory address (which made recorded steps change between runs)."""
import contextlib
import io
from pathlib import Path

import pytest

from engine.runner import run_user_code

STACKED_LEAVES = (Path(__file__).parent / "backward_order_program.py")
# printed by PyTorch 2.13 for the program (its leaf hooks run as each AccumulateGrad does)
PYTORCH_ORDER = "a c g k j i f h e b d \n"


def test_leaves_ready_together_accumulate_in_pytorchs_order():
    record = run_user_code(STACKED_LEAVES.read_text())
    assert record["ok"], record["error"]
    assert record["stdout"] == PYTORCH_ORDER


def test_recorded_steps_are_the_same_run_after_run():
    code = STACKED_LEAVES.read_text()
    orders = [[s["node"] for s in run_user_code(code)["graphs"][0]["steps"]] for _ in range(3)]
    assert orders[0] == orders[1] == orders[2] and len(orders[0]) > 11


@pytest.mark.torch
def test_the_stored_order_is_real_pytorchs(real_torch):
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(STACKED_LEAVES.read_text(), str(STACKED_LEAVES), "exec"), {"__name__": "__main__"})
    assert printed.getvalue() == PYTORCH_ORDER
