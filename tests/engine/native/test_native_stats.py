"""engine/native's stats (fastops.c: the record's min, max and numpy's two pairwise sums in C)
against numpy's own np.add.reduce of the float64 copy and of its squared deviations, bit for bit:
sizes around the summation's blocks (below 8, 8 accumulators up to 128, halves above), random
sizes, float32 and float64, signed zeros, wide spreads; None for a value that is not finite, an
overflowing sum, or no value; a TypeError for an array it does not take. Where the CPU has AVX2
the sums run in AVX's vectors (the default) or in the plain loops (`stats(x, False)`): both are
checked."""
from __future__ import annotations

import numpy as np
import pytest

import engine.tensor  # noqa: F401  (loads engine/native)
from engine import native

module = native.loaded()
pytestmark = pytest.mark.skipif(module is None, reason=f"engine/native: {native.status()}")

SIZES = (1, 2, 7, 8, 9, 15, 16, 17, 127, 128, 129, 136, 255, 256, 257, 1000, 1024, 8191, 8192, 8193, 10**6)


def numpy_sums(x: np.ndarray) -> np.ndarray:
    """values.py's _raw_stats_numpy's operations: the min and max, the sum, the squared deviations' sum."""
    a = x.astype(np.float64)
    total = np.add.reduce(a, axis=None)
    np.subtract(a, total / a.size, out=a)
    np.multiply(a, a, out=a)
    return np.array([x.min(), x.max(), total, np.add.reduce(a, axis=None)], dtype=np.float64)


def kinds(n: int, rng) -> list[np.ndarray]:
    return [rng.normal(0.5, 3.0, n), rng.standard_cauchy(n) * 1e20, rng.uniform(1e6, 1e6 + 1, n),
            np.where(rng.random(n) < 0.5, -1.0, 1.0) * rng.random(n) * 1e-300]


@pytest.mark.parametrize("simd", [True, False])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_sums_are_numpy_s_bit_for_bit(dtype, simd):
    rng = np.random.default_rng(7)
    sizes = SIZES + tuple(int(n) for n in rng.integers(1, 300_000, 12))
    for n in sizes:
        for values in kinds(n, rng):
            x = values.astype(dtype)
            found = np.array(module.stats(x, simd), dtype=np.float64)
            want = numpy_sums(x)
            assert found[2:].tobytes() == want[2:].tobytes(), (n, dtype)
            assert found[0] == want[0] and found[1] == want[1], (n, dtype)   # a zero's sign: values.py asks numpy


def test_a_many_dimensional_contiguous_array_is_summed_as_one_run():
    x = np.random.default_rng(2).normal(size=(3, 7, 129)).astype(np.float32)
    assert np.array(module.stats(x)).tobytes() == numpy_sums(x).tobytes()


@pytest.mark.parametrize("simd", [True, False])
def test_signed_zeros_sum_as_numpy_s(simd):
    for n in (1, 9, 200):
        for dtype in (np.float32, np.float64):
            x = np.full(n, -0.0, dtype)
            assert np.array(module.stats(x, simd)[2:]).tobytes() == numpy_sums(x)[2:].tobytes()


def test_unaligned_arrays_and_every_offset_sum_as_numpy_s():
    """A view starting at any element (the vector loads are unaligned), each block's tail."""
    base = np.random.default_rng(4).normal(0.5, 3.0, 2000)
    for dtype in (np.float32, np.float64):
        x = base.astype(dtype)
        for start in range(9):
            for n in (8, 13, 128, 131, 1021):
                view = x[start:start + n]
                assert np.array(module.stats(view)).tobytes() == numpy_sums(view).tobytes(), (dtype, start, n)


@pytest.mark.parametrize("simd", [True, False])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_a_value_not_finite_or_no_value_leaves_the_array_to_numpy(bad, simd):
    for dtype in (np.float32, np.float64):
        for n in (1, 8, 200, 5000):
            x = np.ones(n, dtype)
            x[n // 2] = bad
            assert module.stats(x, simd) is None
    assert module.stats(np.zeros(0)) is None
    assert module.stats(np.full(10, 1e308)) is None                # the sum overflows
    assert module.stats(np.array([1e200, -1e200])) is None         # the squared deviations overflow


def test_arrays_it_does_not_take_are_refused():
    for x in (np.ones(10, np.int64), np.ones(10, np.float16), np.ones((4, 6))[:, ::2], np.ones(10, ">f8")):
        with pytest.raises((TypeError, ValueError, BufferError)):
            module.stats(x)


def reduceat_means(x: np.ndarray, cells: int) -> np.ndarray:
    """engine/record/trajectory.py's strip in numpy: each cell's np.add.reduceat float64 sum over its size."""
    starts = (np.arange(cells) * x.size) // cells
    return np.add.reduceat(x.reshape(-1), starts, dtype=np.float64) / np.diff(np.append(starts, x.size))


@pytest.mark.parametrize("simd", [True, False])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_strip_is_reduceat_s_bit_for_bit(dtype, simd):
    """strip: reduceat's float64 cells (the first value, then += the pairwise sum of the rest), at
    sizes around the pairwise blocks and past numpy's 8192-value buffers, 1 to 8 cells, signed
    zeros, wide spreads, values that are not finite, a view at every offset."""
    rng = np.random.default_rng(11)
    sizes = SIZES[:-1] + (300_007,) + tuple(int(n) for n in rng.integers(1, 100_000, 8))
    for n in sizes:
        for values in kinds(n, rng) + [np.where(rng.random(n) < 0.5, -0.0, 0.0)]:
            x = values.astype(dtype)
            for cells in {1, min(3, n), min(8, n)}:
                found = np.full(cells, np.nan)
                module.strip(x, found, simd)
                assert found.tobytes() == reduceat_means(x, cells).tobytes(), (n, cells, dtype)
    x = rng.normal(size=600).astype(dtype)
    x[[7, 300]] = [np.inf, np.nan]
    found = np.empty(8)
    module.strip(x, found, simd)
    np.testing.assert_array_equal(found, reduceat_means(x, 8))
    for start in range(9):
        view = x[start + 1:start + 140]
        module.strip(view, found, simd)
        assert found.tobytes() == reduceat_means(view, 8).tobytes(), start


def test_the_strip_and_address_refuse_what_they_do_not_take():
    for x, out in ((np.ones(10, np.int64), np.empty(8)), (np.ones((4, 6))[:, ::2], np.empty(8)),
                   (np.ones(10), np.empty(8, np.float32)), (np.ones(10), np.empty(16)[::2]), (np.ones(5), np.empty(8))):
        with pytest.raises((TypeError, ValueError, BufferError)):
            module.strip(x, out)
    block = np.ones((4, 6))
    assert module.address(block[1:]) == block.__array_interface__["data"][0] + 6 * 8
    with pytest.raises((TypeError, ValueError, BufferError)):
        module.address(block[:, ::2])
