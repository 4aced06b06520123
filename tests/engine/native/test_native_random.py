"""engine/native's random loops (fastops.c's mt_*) against engine/random_pytorch.py's numpy methods,
their reference: the same bits and the same stream left behind, over many seeds, sizes (the 16-value
blocks of the normal kernel and the sizes around them), dtypes and ranges; and, where real torch is
importable, against PyTorch's own draws at sizes the stored cases do not reach."""
from __future__ import annotations

import numpy as np
import pytest

from engine import random_pytorch
from engine.random_pytorch import DEFAULT_SEED, Generator

pytestmark = pytest.mark.skipif(random_pytorch._native is None, reason=random_pytorch.native_status)

SEEDS = (0, 1, 42, 20261201, DEFAULT_SEED, (1 << 40) + 7, 2**32 - 1)
SIZES = ((), 0, 1, 2, 7, 15, 16, 17, 31, 32, 33, 47, 48, 49, 255, 256, 257, 1000, 4099, (3, 5), (2, 8), (4, 0, 3),
         (5, 7, 3))
NORMAL_SIZES = tuple(s for s in SIZES if int(np.prod(s)) >= 16)
DTYPES = (np.float32, np.float64, np.float16)


def pair(seed):
    return Generator().manual_seed(seed), Generator().manual_seed(seed)


def same(got: np.ndarray, want: np.ndarray) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes(), np.flatnonzero(got.reshape(-1) != want.reshape(-1))[:10]


def same_stream(a: Generator, b: Generator) -> None:
    """Both generators are at the same point of the stream, with the same spare normal."""
    same(a.get_state().array, b.get_state().array)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_uniform_is_the_numpy_methods(seed, dtype):
    for low, high in ((0.0, 1.0), (-2.0, 3.0), (-0.1, 0.1), (1e-3, 1e3), (5, 7), (-1e30, 1e30), (2.0, 2.0)):
        for size in SIZES:
            fast, reference = pair(seed)
            same(fast._uniform_c(random_pytorch._native, low, high, size, dtype),
                 reference._uniform_numpy(low, high, size, dtype))
            same_stream(fast, reference)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_normal_is_the_numpy_methods_at_every_block_boundary(seed, dtype):
    for loc, scale in ((0.0, 1.0), (0.5, 2.0), (-3.0, 0.02), (1e6, 1e-6)):
        for size in NORMAL_SIZES:
            fast, reference = pair(seed)
            same(fast._normal_c(random_pytorch._native, loc, scale, size, dtype),
                 reference._normal_numpy(loc, scale, size, dtype))
            same_stream(fast, reference)


def test_every_count_from_16_to_80():
    for n in range(16, 81):
        for dtype in (np.float32, np.float64):
            fast, reference = pair(n)
            same(fast.normal(0.0, 1.0, (n,), dtype), reference._normal_numpy(0.0, 1.0, (n,), dtype))
            same(fast.uniform(-1.0, 1.0, (n,), dtype), reference._uniform_numpy(-1.0, 1.0, (n,), dtype))
            same_stream(fast, reference)


def test_the_float32_normals_four_lanes_shortcut_is_libms():
    """fastops computes float32 normals with its own log and sincos (AVX2) and recomputes with libm
    any block that came near a float32 rounding boundary: the two ways give the same bits, at usual
    scales, where every block is recomputed (loc on a boundary, a tiny scale), and for subnormals."""
    fast = random_pytorch._native
    for seed, (loc, scale) in enumerate(((0.0, 1.0), (0.0, 0.02), (0.1, 1e-5), (100.0, 3.0), (-1.0, 1.0),
                                         (1.0 + 2**-24, 1e-30), (1e-40, 1e-39), (0.0, float("inf")),
                                         (float("nan"), 1.0), (3e38, 1e38))):
        shortcut, exact = np.empty(300_007, np.float32), np.empty(300_007, np.float32)
        with np.errstate(all="ignore"):
            fast.mt_normal(Generator().manual_seed(seed)._bits.capsule, shortcut, loc, scale)
            fast.mt_normal(Generator().manual_seed(seed)._bits.capsule, exact, loc, scale, True)
        assert shortcut.tobytes() == exact.tobytes(), (loc, scale)


@pytest.mark.parametrize("seed", SEEDS)
def test_permutation_and_bernoulli_are_the_numpy_methods(seed):
    for n in (0, 1, 2, 3, 10, 1000, 60000, -2):
        fast, reference = pair(seed)
        same(fast.permutation(n), reference._permutation_numpy(n))
        same_stream(fast, reference)
    for p in (0.0, 0.1, 0.3, 0.5, 1.0, 1.5, -0.5):
        for size in ((), 0, 1, 17, 1000, (3, 4)):
            fast, reference = pair(seed)
            same(fast.bernoulli(p, size), reference._bernoulli_numpy(p, size))
            same_stream(fast, reference)


def test_a_long_mixed_stream_stays_in_step():
    """One generator through the C loops, one through the numpy methods, the same calls in turn
    (the small normals use the cached spare of a double pair; the large ones do not touch it)."""
    rng = np.random.default_rng(7)
    fast, reference = pair(SEED := 123)
    for _ in range(200):
        kind = rng.integers(6)
        size = (int(rng.integers(0, 70)),)
        dtype = (np.float32, np.float64)[int(rng.integers(2))]
        if kind == 0:
            a, b = fast.uniform(-1.0, 2.0, size, dtype), reference._uniform_numpy(-1.0, 2.0, size, dtype)
        elif kind == 1:
            a, b = fast.normal(1.0, 3.0, size, dtype), reference._normal_numpy(1.0, 3.0, size, dtype)
        elif kind == 2:
            a, b = fast.permutation(size[0]), reference._permutation_numpy(size[0])
        elif kind == 3:
            a, b = fast.bernoulli(0.25, size), reference._bernoulli_numpy(0.25, size)
        elif kind == 4:
            a, b = fast.integers(0, 9, size), reference.integers(0, 9, size)
        else:
            a, b = fast.normal(size=(3,)), reference._normal_numpy(size=(3,))
        same(a, b)
    same_stream(fast, reference)
    assert fast.initial_seed() == SEED


def test_state_taken_from_a_generator_drives_the_c_loops():
    g = Generator().manual_seed(5)
    g.uniform(size=(10,))
    state = g.get_state()
    other = Generator().set_state(state)
    same(other.normal(size=(100,)), g._normal_numpy(size=(100,)))


def test_wrong_buffers_are_refused():
    fast = random_pytorch._native
    capsule = Generator()._bits.capsule
    with pytest.raises(TypeError):
        fast.mt_uniform(capsule, np.empty(4, np.int32), 0.0, 1.0)
    with pytest.raises(ValueError, match="contiguous"):
        fast.mt_uniform(capsule, np.empty((4, 4), np.float32)[:, 1], 0.0, 1.0)
    with pytest.raises(ValueError):
        fast.mt_normal(capsule, np.empty(15, np.float32), 0.0, 1.0)
    with pytest.raises(ValueError):
        fast.mt_uniform(object(), np.empty(4, np.float32), 0.0, 1.0)        # not numpy's capsule


@pytest.mark.torch
def test_large_draws_are_pytorchs(real_torch):
    """Sizes past the stored cases: uniform, randperm and bernoulli bit for bit; normal to the
    tolerance random_pytorch's docstring states (PyTorch's AVX2 log/sin/cos for float32)."""
    torch = real_torch
    for seed in (0, 3, DEFAULT_SEED):
        g, t = Generator().manual_seed(seed), torch.Generator().manual_seed(seed)
        same(g.uniform(-2.0, 3.0, (100003,)), torch.empty(100003).uniform_(-2.0, 3.0, generator=t).numpy())
        same(g.permutation(5001), torch.randperm(5001, generator=t).numpy())
        same(g.bernoulli(0.3, (4097,)),
             torch.empty(4097, dtype=torch.float64).bernoulli_(0.3, generator=t).bool().numpy())
        ours, theirs = g.normal(0.0, 1.0, (100001,)), torch.empty(100001).normal_(generator=t).numpy()
        np.testing.assert_allclose(ours, theirs, rtol=2e-6, atol=2e-6)
        ours = g.normal(1.0, 2.0, (4099,), np.float64)
        theirs = torch.empty(4099, dtype=torch.float64).normal_(1.0, 2.0, generator=t).numpy()
        np.testing.assert_allclose(ours, theirs, rtol=1e-14, atol=1e-14)
        same(g.uniform(size=(5,)), torch.rand(5, generator=t).numpy())       # the streams are still in step


def test_nn_init_draws_into_the_storage_what_the_numpy_path_copies_there(monkeypatch):
    """nn.init's uniform_/normal_ let the C loops fill a weight's own array: the values are the numpy
    path's, for contiguous, transposed, sliced, float64 and float16 tensors, and the stream after too."""
    from engine import creation
    from engine.nn import init
    from engine.tensor import Tensor

    def tensors():
        base = np.zeros((40, 24), np.float32)
        return [Tensor(np.zeros((33, 17), np.float32)), Tensor(np.zeros((17, 33), np.float32).T),
                Tensor(base[5:30]), Tensor(base[:, 3:9]), Tensor(np.zeros((50, 3), np.float64)),
                Tensor(np.zeros((64,), np.float16)), Tensor(np.zeros((5,), np.float32))]

    results = {}
    for mode in ("C", "numpy"):
        if mode == "numpy":
            monkeypatch.setattr(random_pytorch, "_native", None)
        creation.rng(None).manual_seed(9)
        drawn = []
        for fill in (lambda t: init.normal_(t, 0.5, 0.02), lambda t: init.uniform_(t, -0.1, 0.1)):
            for t in tensors():
                fill(t)
                drawn.append(t.array.copy())
        drawn.append(creation.rng(None).uniform(size=(3,)))
        results[mode] = drawn
    for a, b in zip(results["C"], results["numpy"]):
        same(a, b)
