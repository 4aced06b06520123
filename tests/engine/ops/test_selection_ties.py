"""Which of several equal values mode, kthvalue and median(dim) return: PyTorch leaves it to its
algorithms (libstdc++'s std::sort for mode, TH's quickselect for kthvalue, nth_element with the
index as tie-break for median), which engine/ops/sorting.py and std_sort.py follow step for step.
Rows of many ties, past std::sort's 16-element insertion sort; the indices are real torch 2.13's
(recorded with real torch: torch.mode(t).indices, torch.kthvalue(t, k).indices and
torch.median(t, 0).indices for the row each seed makes)."""
import numpy as np
import pytest

from engine.compat import torch

# (seed, n, values 0..high, torch's mode index, k, torch's kthvalue index, torch's median(0) index)
RECORDED = [(1, 40, 3, 0, 14, 29, 34), (2, 100, 4, 80, 34, 16, 71), (3, 257, 5, 55, 86, 33, 26),
            (4, 1000, 2, 463, 334, 119, 548), (5, 33, 1, 4, 12, 14, 26)]


@pytest.mark.parametrize("seed,n,high,mode_at,k,kth_at,median_at", RECORDED)
def test_tied_rows_pick_the_index_pytorch_picks(seed, n, high, mode_at, k, kth_at, median_at):
    x = torch.tensor(np.random.default_rng(seed).integers(0, high + 1, n).astype(np.float32))
    assert int(x.mode().indices) == mode_at
    assert int(x.kthvalue(k).indices) == kth_at
    assert int(x.median(0).indices) == median_at


def test_the_values_are_the_order_statistics():
    x = torch.tensor([3.0, 1.0, 2.0, 2.0, 5.0, 2.0])
    assert float(x.median()) == 2.0 and float(x.kthvalue(5).values) == 3.0 and float(x.mode().values) == 2.0
    assert torch.tensor([4.0, 1.0, 3.0, 2.0]).median().item() == 2.0          # the lower of the two middles
    assert np.isnan(torch.tensor([1.0, float("nan"), 0.0]).median().item())
    values, indices = torch.tensor([[1.0, 3.0, 2.0, 3.0]]).cummax(1)
    assert values.tolist() == [[1.0, 3.0, 3.0, 3.0]] and indices.tolist() == [[0, 1, 1, 3]]
