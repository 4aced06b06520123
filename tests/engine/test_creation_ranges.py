"""arange and linspace fill float ranges with PyTorch's own rounding, which printing makes visible
(torch.arange(-1, 1, 0.1)[10] is -2.9802e-09 in PyTorch, so the tensor prints in scientific notation).
Bit patterns below were read from PyTorch 2.13 on x86-64; with real torch installed, more cases are
compared with it directly."""
import importlib.util
import json
import math
import pathlib
import subprocess
import sys

import numpy as np
import pytest

from engine.compat import torch_dtypes
from engine.creation import arange, linspace


def test_arange_middle_value_is_pytorchs_not_zero():
    values = arange(-1, 1, 0.1).array
    assert values.dtype == np.float32 and values.shape == (20,)
    assert values[10] == np.float32(-2.9802322e-09)
    assert values[11] == np.float32(0.099999994)
    assert repr(arange(-1, 1, 0.1)).startswith("tensor([-1.0000e+00, -9.0000e-01")


def test_linspace_counts_down_from_the_end_in_its_second_half():
    values = linspace(-100, 100, 25).array
    assert values[12] == np.float32(3.8146973e-06)       # 100 - step * 12 in one rounding
    assert values[11] == np.float32(-8.3333368)
    assert values[0] == -100 and values[-1] == 100
    assert linspace(0, 1, 1).tolist() == [0.0] and linspace(0, 1, 0).tolist() == []
    assert linspace(0, 10, 4, dtype=torch_dtypes.int64).tolist() == [0, 3, 6, 10]


CASES_ARANGE = [(-1, 1, 0.1), (-3.0, 3.0, 0.01), (0.5, 100.5, 0.7), (0, 6.28318, 0.01), (-5, 5, 0.5),
                (0, 10000, 0.37), (2.5,), (-2, 2, 0.25)]
CASES_LINSPACE = [(-100, 100, 25), (-1, 1, 40), (-math.pi, math.pi, 2000), (0.1, 0.9, 17), (-7.3, 12.9, 333),
                  (5, -5, 64), (0, 1, 1), (3, 3, 4)]
_TORCH_CHILD = """
import json, sys, torch
cases_arange, cases_linspace = json.load(sys.stdin)
out = {}
for name in ("float32", "float64"):
    dt = getattr(torch, name)
    out[name] = ([torch.arange(*c, dtype=dt).tolist() for c in cases_arange],
                 [torch.linspace(*c, dtype=dt).tolist() for c in cases_linspace])
json.dump(out, sys.stdout)
"""


@pytest.mark.torch
def test_float_ranges_equal_real_pytorchs():
    spec = importlib.util.find_spec("torch")
    if spec is None or "engine" in pathlib.Path(spec.origin or "").parts:
        pytest.skip("real PyTorch is not installed")
    done = subprocess.run([sys.executable, "-c", _TORCH_CHILD], input=json.dumps([CASES_ARANGE, CASES_LINSPACE]),
                          capture_output=True, text=True, timeout=300, check=True)
    theirs = json.loads(done.stdout)
    for name in ("float32", "float64"):
        dt = getattr(torch_dtypes, name)
        ours_arange = [arange(*c, dtype=dt).tolist() for c in CASES_ARANGE]
        ours_linspace = [linspace(*c, dtype=dt).tolist() for c in CASES_LINSPACE]
        if name == "float64":
            # Long-double emulation of double's fused multiply-add: a rare last-bit difference.
            for ours, real in zip(ours_arange + ours_linspace, theirs[name][0] + theirs[name][1]):
                np.testing.assert_allclose(ours, real, rtol=4e-16, atol=0)
            continue
        assert ours_arange == theirs[name][0]
        assert ours_linspace == theirs[name][1]
