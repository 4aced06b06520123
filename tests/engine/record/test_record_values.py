"""engine/record/values.py: how a tensor is written into the run record."""
import json

import numpy as np
import pytest

from engine.record import values
from engine.record.values import TensorMemo, tensor_json


def test_non_finite_values_are_strings_wherever_they_stand():
    a = np.array([[1.0, np.nan], [np.inf, -np.inf]], dtype=np.float32)
    assert tensor_json(a)["data"] == [[1.0, "nan"], ["inf", "-inf"]]
    big = np.ones((40, 40), dtype=np.float32)
    big[0, 0] = np.nan
    out = tensor_json(big)
    assert out["preview"][0] == "nan" and out["heatmap"][0][0] == "nan"
    assert out["stats"] == {"min": 1.0, "max": 1.0, "mean": 1.0, "std": 0.0}     # over the finite values


def test_finite_values_are_plain_floats_in_the_fewest_digits():
    out = tensor_json(np.array([0.1, 1 / 3], dtype=np.float32))
    assert out["data"] == [0.1, 0.333333343] and all(type(v) is float for v in out["data"])


def test_the_heat_map_averages_blocks_of_any_shape():
    a = np.arange(50 * 30, dtype=np.float64).reshape(50, 30)
    heat = np.array(tensor_json(a)["heatmap"])
    assert heat.shape == (24, 24)
    rows = np.linspace(0, 50, 25).astype(int)
    cols = np.linspace(0, 30, 25).astype(int)
    expected = [[a[rows[i]:rows[i + 1], cols[j]:cols[j + 1]].mean() for j in range(24)] for i in range(24)]
    np.testing.assert_allclose(heat, expected, rtol=1e-3)
    assert np.array(tensor_json(np.arange(100.0))["heatmap"]).shape == (1, 48)


def test_the_memo_writes_each_array_once_and_gives_each_place_its_own_dict(monkeypatch):
    calls = []
    real = values.tensor_json
    monkeypatch.setattr(values, "tensor_json", lambda a: calls.append(a) or real(a))
    memo = TensorMemo()
    g, h = np.ones((3, 3), np.float32), np.ones((3, 3), np.float32)
    first, again, other = memo(g), memo(g), memo(h)
    assert first == again == other and first is not again
    assert len(calls) == 2 and memo(None) is None


def test_with_a_value_store_a_large_tensor_is_its_summary_and_the_id_of_its_bytes():
    store = values.ValueStore(max_bytes=10_000)
    memo = TensorMemo(store)
    big = np.random.default_rng(0).standard_normal((40, 30)).astype(np.float32)
    out = memo(big)
    memo.flush()                                        # the float32 digits are written all at once
    whole = tensor_json(big)
    assert out == {**{k: v for k, v in whole.items() if k != "heatmap"}, "values": "v1"}
    assert store.index == [{"id": "v1", "dtype": "float32", "shape": [40, 30], "nbytes": 4800}]
    assert store.chunks[0] == big.tobytes()
    big[0, 0] = 7.0                                     # changed in place later: the kept bytes are not
    assert np.frombuffer(store.chunks[0], np.float32)[0] != 7.0
    assert memo(big) == out and len(store.index) == 1   # once per array
    small = np.ones(64, np.float32)
    assert memo(small) == tensor_json(small)            # small tensors stay whole in the record
    past = memo(np.zeros((50, 50)))                     # 20,000 bytes: past the bound, no values, no heat-map
    assert "values" not in past and "heatmap" not in past and past["stats"]["max"] == 0.0
    odd = memo(np.zeros(100, dtype=">f4"))              # a byte order the server would misread
    assert "values" not in odd


def _arrays():
    """Large tensors of every kind the record meets: dtypes, layouts, sizes across numpy's
    summation blocks, values not finite."""
    rng = np.random.default_rng(1)
    for shape in [(65,), (8, 9), (20, 200), (33, 257), (3, 4, 1000), (9000,), (300, 700)]:
        for dtype in (np.float32, np.float64, np.float16, np.int64, np.int32, np.uint8, np.bool_):
            a = (rng.standard_normal(shape) * 3).astype(dtype)
            yield a
            if a.ndim == 2:
                yield a.T                                   # not contiguous
                yield a[:, ::2]
    spiky = rng.standard_normal((40, 50)).astype(np.float32) * 1e30
    yield spiky
    for bad in (np.nan, np.inf, -np.inf):
        b = rng.standard_normal((30, 30)).astype(np.float32)
        b[3, 4] = bad
        yield b
    yield np.full((10, 10), np.nan, np.float32)
    for n in (127, 128, 129, 1000, 8193, 10**6, *rng.integers(65, 300_000, 4)):    # C's pairwise blocks
        for dtype in (np.float32, np.float64):
            yield (rng.standard_normal(n) * 2 + 1).astype(dtype)
    heads = (rng.standard_normal((4, 64, 6, 64)) * 2).astype(np.float32)           # attention's (B, T, nh, hs)
    yield heads.transpose(0, 2, 1, 3)                                               # one block in another order: C
    yield heads.transpose(0, 2, 3, 1)
    yield np.asfortranarray(rng.standard_normal((129, 1000)))
    yield (rng.standard_cauchy((300, 700)) * 1e3).T        # its sum in C order differs from memory order's
    yield heads[:, ::-1]                                                            # a negative stride: numpy's path
    yield heads[..., 1:]                                                            # gaps: C, from a copy
    yield heads.transpose(0, 2, 1, 3)[:, 1:, :, ::2]                                # gaps in another axis order
    cauchy = rng.standard_cauchy((300, 700)) * 1e3                                  # order changes its sum
    yield cauchy[:, 3:].T.astype(np.float32)
    yield cauchy.T[1:, ::3]
    yield np.asfortranarray(cauchy)[5:, :600]
    yield cauchy[:, :0:-1]                                                          # gaps and a negative stride
    yield (rng.standard_normal(5000) * 3).astype(">f4")                             # numpy's path: a swapped byte order
    zeros = np.maximum(rng.standard_normal((30, 30)).astype(np.float32), 0)    # ReLU: 0.0 and -0.0
    zeros[::3] *= -1
    yield zeros
    yield -zeros


def test_the_batched_summary_has_tensor_json_numbers_bit_for_bit():
    store = values.ValueStore(max_bytes=1 << 30)
    memo = TensorMemo(store)
    arrays = list(_arrays())
    shown = [memo(a) for a in arrays]
    memo.flush()
    for a, out in zip(arrays, shown):
        want = tensor_json(a, heatmap=False)
        got = {k: v for k, v in out.items() if k != "values"}
        assert json.dumps(got, allow_nan=False) == json.dumps(want, allow_nan=False), (a.dtype, a.shape)


def test_views_of_one_block_share_its_statistics_bit_for_bit(monkeypatch):
    """A block's views (its transpose, a permute, a reshape) have their C statistics computed
    once, and they are tensor_json's of each view, bit for bit, float32 and float64; a block
    with a value that is not finite goes to numpy's path for each view (its finite values in
    that view's order). A view with gaps or a negative stride is its own: the first summed in C
    from its copy, the second on numpy's path."""
    if values._native_stats() is None:
        pytest.skip("engine/native's stats are not in use here")
    rng = np.random.default_rng(7)
    if values._native_summary() is None:
        pytest.skip("engine/native's summary is not in use here")
    calls = []
    real = values._native_summary()
    monkeypatch.setattr(values, "_native_summary", lambda: lambda a, first, stats=True: (
        calls.append(a.shape) if stats else None) or real(a, first, stats))
    for dtype in (np.float32, np.float64):
        for poison in (None, np.inf, np.nan):
            block = (rng.standard_cauchy((6, 40, 30)) * 1e3).astype(dtype)
            if poison is not None:
                block[2, 3, 4] = poison
            views = [block, block.transpose(2, 0, 1), block.reshape(240, 30).T, block.reshape(-1),
                     block.transpose(1, 0, 2).transpose(1, 0, 2), block.swapaxes(0, 2)]
            own = [block[:, :, 1:], block[::-1], block.T.copy()]
            memo = TensorMemo(values.ValueStore(max_bytes=1 << 30))
            calls.clear()
            shown = [memo(a) for a in views + own]
            memo.flush()
            # the block, block[:, :, 1:] (summed from its copy), block.T.copy(), and block[::-1]
            # (which fastops leaves to numpy's path)
            assert sorted(calls) == [(6, 40, 29), (6, 40, 30), (6, 40, 30), (30, 40, 6)], calls
            for a, out in zip(views + own, shown):
                want = tensor_json(a, heatmap=False)
                got = {k: v for k, v in out.items() if k != "values"}
                assert json.dumps(got, allow_nan=False) == json.dumps(want, allow_nan=False), (dtype, poison, a.shape)


def test_views_of_one_layout_are_one_summary_and_one_kept_copy():
    """Distinct view objects that read the same memory in the same way (a weight's .t() at each
    of an LSTM's steps) are summarised and kept once, their Tensors the same id; a view of the
    block in another order, or a copy, is its own."""
    if values.native.loaded() is None:
        pytest.skip("engine/native is not loaded here")
    block = np.random.default_rng(3).standard_normal((20, 30)).astype(np.float32)
    store = values.ValueStore(max_bytes=1 << 20)
    memo = TensorMemo(store)
    same = [memo(block.T) for _ in range(4)] + [memo(block.T.T.T)]
    other = [memo(block), memo(block.reshape(30, 20)), memo(block.T.copy())]
    memo.flush()
    assert all(s == same[0] for s in same) and same[0]["values"] == "v1"
    assert len({o["values"] for o in other}) == 3 and "v1" not in {o["values"] for o in other}
    assert len(store.index) == 4 and store.chunks[0] == block.T.tobytes()
    for a, out in ((block.T, same[0]), (block, other[0])):
        assert {k: v for k, v in out.items() if k != "values"} == tensor_json(a, heatmap=False)


def test_the_c_statistics_are_numpy_s_bit_for_bit(monkeypatch):
    """_raw_stats with fastops' stats (when engine/native is loaded here) and with numpy alone."""
    if values._native_stats() is None:
        pytest.skip("engine/native's stats are not in use here")
    arrays = list(_arrays())
    with_c = [values._raw_stats(a) for a in arrays]
    monkeypatch.setattr(values, "_native_stats", lambda: None)
    monkeypatch.setattr(values, "_native_summary", lambda: None)
    for a, got in zip(arrays, with_c):
        want = values._raw_stats_numpy(a)
        assert (got is None) == (want is None), (a.dtype, a.shape)
        if want is not None:
            assert np.array(got).tobytes() == np.array(want, dtype=np.float64).tobytes(), (a.dtype, a.shape)


@pytest.mark.parametrize("data", [np.full(100, 1e308), np.tile([1e308, -1e308], 50), np.full((10, 10), -1.5e308)],
                         ids=["sum overflows", "squares overflow", "2-d, negative"])
def test_statistics_of_values_whose_sum_overflows_stay_finite_numbers(data):
    """Finite values near float64's largest: their sum or squares overflow, and an inf mean or std
    made the whole record fail as JSON (the run ended in internal_error). The mean and std are
    computed on the values scaled by their largest magnitude."""
    memo = TensorMemo(values.ValueStore(1 << 20))
    for stats in (tensor_json(data)["stats"], memo(data)["stats"]):
        memo.flush()
        json.dumps(stats, allow_nan=False)
        np.testing.assert_allclose([stats["mean"], stats["std"]], [np.mean(data / 1e308) * 1e308,
                                                                   np.std(data / 1e308) * 1e308], rtol=1e-12)
        assert stats["min"] == data.min() and stats["max"] == data.max()


def test_a_run_whose_tensor_sum_overflows_keeps_its_record(run):
    record = run("import torch\nx = torch.full((100,), 1e308, dtype=torch.float64, requires_grad=True)\n"
                 "y = (x * 1.0).sum()\nprint(y)\ny.backward()\n")
    assert record["error"] is None and record["stdout"].startswith("tensor(inf")
    json.dumps(record, allow_nan=False)
