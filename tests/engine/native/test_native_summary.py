"""engine/native's summary and block (fastops.c: a record's statistics and preview of one tensor in
one call) against values.py's reference path, bit for bit: _raw_stats_reference (fastops' stats on
_in_memory_order, on a gapped view's C-ordered copy, or numpy's) and the first values in C order.
Random, non-finite, one-value and tiny arrays; contiguous, transposed, permuted, gapped, negative
and zero strides, unaligned; float32 and float64 with and without AVX; every other dtype refused."""
from __future__ import annotations

import numpy as np
import pytest

import engine.tensor  # noqa: F401  (loads engine/native)
from engine import native
from engine.record import values

module = native.loaded()
pytestmark = pytest.mark.skipif(module is None or values._native_stats() is None,
                                reason=f"engine/native: {native.status()}")


def layouts(x: np.ndarray):
    yield x
    if x.ndim >= 2:
        yield x.T
        yield x[:, ::2]
        yield x[::-1]
        yield x[1:, 1:]
        yield np.asfortranarray(x)
        yield np.swapaxes(x, 0, -1)[::3]
    if x.ndim == 3:
        yield x.transpose(1, 2, 0)
        yield x[:, :, ::-1]
    yield np.broadcast_to(x.reshape(-1)[:1], (3, 40))          # a zero stride
    unaligned = np.frombuffer(b"\0" + x.tobytes(), dtype=x.dtype, offset=1).reshape(x.shape)
    yield unaligned


def arrays(rng):
    for shape in ((1,), (2,), (7,), (9,), (129,), (3, 50), (6, 40, 7), (5, 300)):
        yield rng.normal(0.5, 3.0, shape)
        yield rng.standard_cauchy(shape) * 1e20
        yield np.where(rng.random(shape) < 0.5, -0.0, 1e-30) * rng.random(shape)
        yield np.maximum(rng.normal(size=shape), 0) * np.where(rng.random(shape) < 0.3, -1, 1)   # ReLU's zeros
        for bad in (np.nan, np.inf, -np.inf):
            x = rng.normal(size=shape)
            x.reshape(-1)[x.size // 2] = bad
            yield x
    yield np.full(200, 1e308)                                   # a sum past float64's range
    yield np.full((10, 10), np.nan)                             # no finite value


def same(found, want) -> bool:
    if found is None or want is None:
        return found is None and want is None
    return np.array(found, dtype=np.float64).tobytes() == np.array(want, dtype=np.float64).tobytes()


@pytest.mark.parametrize("simd", [True, False])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_summary_is_the_reference_path_s_bit_for_bit(dtype, simd):
    rng = np.random.default_rng(16)
    checked = 0
    for values_ in arrays(rng):
        for view in layouts(values_.astype(dtype)):
            found, first = module.summary(view, 16, True, simd)
            assert first == view.reshape(-1)[:16].astype(np.float64).tobytes(), view.shape
            assert module.summary(view, -1, True, simd)[1] is None
            assert module.summary(view, 5, False, simd) == (None, first[:40])
            want = values._raw_stats_reference(view)
            if found is None:
                # numpy's path: a stride <= 0, or stats leaves it (a value not finite, none finite,
                # a sum past float64's range)
                gathered = np.ascontiguousarray(values._in_memory_order(view))
                assert (any(s <= 0 for s, n in zip(view.strides, view.shape) if n > 1)
                        or values._raw_stats_c(gathered, module.stats) is None), (view.shape, view.strides)
                assert same(values._raw_stats(view), want)
                continue
            assert same(values._signed_zeros(view, found), want), (view.shape, view.strides)
            assert same(values._raw_stats(view), want)
            checked += 1
    assert checked > 100


def test_the_block_is_where_one_block_of_memory_starts():
    x = np.arange(240, dtype=np.float32).reshape(6, 40)
    address = module.address(x)
    for view in (x, x.T, x.reshape(2, 3, 40).transpose(2, 0, 1), x[None], x.reshape(-1), x[:, None]):
        assert module.block(view) == address, view.shape
    for view in (x[:, 1:], x[::2], x[::-1], np.broadcast_to(x[:1], (5, 40)), x[:, ::-1]):
        assert module.block(view) is None, view.strides
    assert module.block(x[1:]) == address + 40 * 4
    with pytest.raises(TypeError):
        module.block([1.0, 2.0])


@pytest.mark.parametrize("dtype", ["float16", "int32", "int64", "uint8", "bool", "complex64", ">f4", ">f8"])
def test_other_dtypes_are_refused_and_summarised_by_numpy(dtype):
    """summary takes float32 and float64 of the native byte order only; values.py gives the
    rest numpy's path, and TensorMemo's summary of them is tensor_json's."""
    x = (np.random.default_rng(2).normal(size=(10, 30)) * 50).astype(dtype)
    with pytest.raises(TypeError):
        module.summary(x, 16)
    if x.dtype.kind in "fiub":
        memo = values.TensorMemo(values.ValueStore(1 << 20))
        out = memo(x)
        memo.flush()
        assert {k: v for k, v in out.items() if k != "values"} == values.tensor_json(x, heatmap=False)


def test_the_memo_with_c_and_without_writes_the_same_record(monkeypatch):
    """TensorMemo's summaries with fastops' summary and with values.py's reference path
    (_native_summary None) are the same JSON, every layout and kind above."""
    import json
    rng = np.random.default_rng(5)
    batch = [v for x in arrays(rng) if x.size > values.MAX_DATA_ELEMENTS
             for dtype in (np.float32, np.float64) for v in layouts(x.astype(dtype))]

    def written():
        memo = values.TensorMemo(values.ValueStore(1 << 30))
        out = [memo(a) for a in batch]
        memo.flush()
        return json.dumps(out)

    with_c = written()
    monkeypatch.setattr(values, "_native_summary", lambda: None)
    assert written() == with_c
