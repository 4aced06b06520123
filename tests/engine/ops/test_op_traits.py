"""OpDef's traits (view, copies, writes_out, normalize, library_kernel, random_mask_input) tell the
truth about each op: every stage reads them instead of keeping its own set of op names (the
capture's frozen-mask warning is tested in test_capture.py, the plan and the units in test_memory_plan.py
and test_codegen.py)."""
from __future__ import annotations

import numpy as np
import pytest

from engine.ops import OPS
from engine.ops.registry import MOVEMENT
from tests.engine.op_cases import CASES

VIEWS = sorted(name for name, op in OPS.items() if op.view)
COPYING = sorted(name for name, op in OPS.items() if op.copies)


def test_every_movement_op_is_either_a_view_or_a_copy():
    movement = {name for name, op in OPS.items() if op.kind == MOVEMENT}
    assert set(VIEWS) | set(COPYING) == movement and not set(VIEWS) & set(COPYING)


@pytest.mark.parametrize("name", VIEWS + COPYING)
def test_a_view_op_returns_a_view_of_its_input_and_a_copying_op_does_not(name):
    assert CASES.get(name), f"op_cases has no case for {name}"
    for case in CASES[name]:
        out = OPS[name].forward(*case.inputs, **case.attrs)
        assert np.shares_memory(out, case.inputs[0]) == OPS[name].view


def test_random_mask_input_names_the_mask():
    op = OPS["dropout"]
    x, mask = np.ones((2, 3), np.float32), np.zeros((2, 3), np.float32)
    assert op.random_mask_input == 1
    np.testing.assert_array_equal(op.forward(x, mask, p=0.5), mask)    # the output follows that input


def test_stage_traits():
    assert sorted(n for n, op in OPS.items() if op.normalize) == ["log_softmax", "softmax"]
    assert sorted(n for n, op in OPS.items() if op.library_kernel) == ["gather_backward", "native_layer_norm",
                                                                       "nll_loss"]
    assert {"matmul", "addmm", "cat", "stack", "softmax", "log_softmax"} == \
        {n for n, op in OPS.items() if op.writes_out}
