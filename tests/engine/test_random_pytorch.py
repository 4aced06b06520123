"""engine/random_pytorch.py on its own: each distribution of Generator draws what PyTorch 2.13's CPU
generator draws after the same manual_seed (its kernels, named in the module), and the generator's
state, seeds and stream behave as torch.Generator's.

The draws real torch made are stored in STORED, so the test runs without torch; where real torch is
importable, the stored values are checked against it now. To record them again (after changing a
case), run this file: `.venv/bin/python tests/engine/test_random_pytorch.py` prints STORED.
"""
from __future__ import annotations

import numpy as np
import pytest

from engine.random_pytorch import DEFAULT_SEED, Generator
from engine.tensor import Tensor

SEED = 20261201

# name -> (the draw from an engine Generator, the same draw from a torch.Generator (torch passed in)).
# Every draw starts from a generator seeded with SEED.
CASES = {
    "uniform float32": (lambda g: g.uniform(0.0, 1.0, (7,), np.float32),
                        lambda torch, t: torch.empty(7).uniform_(0.0, 1.0, generator=t)),
    "uniform float32 in [-2, 3)": (lambda g: g.uniform(-2.0, 3.0, (2, 3), np.float32),
                                   lambda torch, t: torch.empty(2, 3).uniform_(-2.0, 3.0, generator=t)),
    "uniform float64": (lambda g: g.uniform(-2.0, 3.0, (5,), np.float64),
                        lambda torch, t: torch.empty(5, dtype=torch.float64).uniform_(-2.0, 3.0, generator=t)),
    "normal, fewer than 16 (one double at a time)": (
        lambda g: g.normal(0.5, 2.0, (5,), np.float32),
        lambda torch, t: torch.empty(5).normal_(0.5, 2.0, generator=t)),
    "normal, 16-value blocks, the last redrawn": (
        lambda g: g.normal(0.0, 1.0, (20,), np.float32),
        lambda torch, t: torch.empty(20).normal_(generator=t)),
    "normal float64 blocks": (lambda g: g.normal(1.0, 3.0, (32,), np.float64),
                              lambda torch, t: torch.empty(32, dtype=torch.float64).normal_(1.0, 3.0, generator=t)),
    "normal keeps the spare of its pair": (
        lambda g: np.concatenate([g.normal(size=(3,)), g.normal(size=(3,))]),
        lambda torch, t: torch.cat([torch.empty(3).normal_(generator=t), torch.empty(3).normal_(generator=t)])),
    "integers": (lambda g: g.integers(-3, 10, (9,)),
                 lambda torch, t: torch.randint(-3, 10, (9,), generator=t)),
    "integers over a range wider than 2**32": (lambda g: g.integers(0, 1 << 40, (4,)),
                                               lambda torch, t: torch.randint(0, 1 << 40, (4,), generator=t)),
    "permutation": (lambda g: g.permutation(12), lambda torch, t: torch.randperm(12, generator=t)),
    "bernoulli(p)": (lambda g: g.bernoulli(0.3, (10,)),
                     lambda torch, t: torch.empty(10, dtype=torch.float64).bernoulli_(0.3, generator=t).bool()),
    "bernoulli of a probability tensor": (
        lambda g: g.bernoulli_tensor(np.linspace(0, 1, 8, dtype=np.float32)),
        lambda torch, t: torch.bernoulli(torch.linspace(0, 1, 8), generator=t).bool()),
    "exponential": (lambda g: g.exponential((5,), 2.0),
                    lambda torch, t: torch.empty(5, dtype=torch.float64).exponential_(2.0, generator=t)),
    "multinomial without replacement": (
        lambda g: g.multinomial(np.array([[0.1, 0.2, 0.3, 0.4], [1, 0, 2, 1]], np.float32), 3, False),
        lambda torch, t: torch.multinomial(torch.tensor([[0.1, 0.2, 0.3, 0.4], [1.0, 0, 2, 1]]), 3, False,
                                           generator=t)),
    "multinomial with replacement": (
        lambda g: g.multinomial(np.array([0.1, 0.2, 0.3, 0.4], np.float32), 6, True),
        lambda torch, t: torch.multinomial(torch.tensor([0.1, 0.2, 0.3, 0.4]), 6, True, generator=t)),
    "random_ of an int64 scalar": (lambda g: np.asarray(g.random_int64()),
                                   lambda torch, t: torch.empty((), dtype=torch.int64).random_(generator=t)),
}

# PyTorch's float32 normal kernel evaluates log/sin/cos with AVX2 polynomials: matched to about 1e-6
# relative (the module's docstring); everything else is bit for bit.
RTOL = {"normal, 16-value blocks, the last redrawn": 2e-6, "normal float64 blocks": 1e-14}

STORED = {
    # recorded from torch 2.13.0+cpu (python tests/engine/test_random_pytorch.py)
    'uniform float32': ('float32', [0.9932657480239868, 0.9028566479682922, 0.04988288879394531,
        0.7746737599372864, 0.988315224647522, 0.9969320297241211, 0.9671331644058228]),
    'uniform float32 in [-2, 3)': ('float32', [[2.9663286209106445, 2.5142831802368164, -1.7505855560302734],
        [1.873368740081787, 2.9415760040283203, 2.9846601486206055]]),
    'uniform float64': ('float64', [2.7306316150618404, -0.004682066154910625, 2.5326107740116495,
        1.6853265984911177, 2.752192011954346]),
    'normal, fewer than 16 (one double at a time)': ('float32', [2.403909206390381, -0.1702677458524704,
        3.221231460571289, -1.311545491218567, 2.052734613418579]),
    'normal, 16-value blocks, the last redrawn': ('float32', [-3.16005539894104, 1.6759892702102661,
        0.17079013586044312, -0.8438032269477844, -0.6799064874649048, 0.2865413427352905, -3.11017107963562,
        1.0814448595046997, 1.4345898628234863, -0.17461887001991272, 0.6487430930137634, -0.48698487877845764,
        0.7231032252311707, -0.4725920557975769, -0.6982806921005249, -0.14232562482357025, -1.4230338335037231,
        -1.496508002281189, -0.6908395290374756, -1.1957396268844604]),
    'normal float64 blocks': ('float64', [-2.933297950922919, 1.5217070776036294, 5.990627589793988,
        5.666067042483815, 8.138440419174044, 2.9257290138607708, 5.3988553032267275, 0.5988375780536169,
        7.091732628084992, 3.982383686750938, 5.213572240912004, -0.5076842847449212, -0.7675887943152854,
        -0.509407322425795, -0.10555710036114785, 3.0201904597237244, 1.1029664327472346, -3.2777517949859005,
        -0.1100189272941901, -4.379637499077457, -1.6248131205587137, -0.17008367864579355, 0.5890464078589841,
        -0.5503567451586181, 1.2868998206456461, -5.296142876206414, -6.178594650828275, 0.8088476030648949,
        1.535002299939816, 0.9676887615315966, 3.3144992343431374, 1.6987472879017051]),
    'normal keeps the spare of its pair': ('float32', [0.9519546031951904, -0.3351338803768158,
        1.3606157302856445, -0.9057727456092834, 0.7763673067092896, -0.24989481270313263]),
    'integers': ('int64', [0, -1, -3, 7, 9, 2, 7, 9, -2]),
    'integers over a range wider than 2**32': ('int64', [733196263837, 141730140421, 252329277168,
        42989769782]),
    'permutation': ('int64', [10, 7, 2, 11, 6, 1, 8, 9, 5, 3, 4, 0]),
    'bernoulli(p)': ('bool', [False, False, False, False, False, True, False, True, False, True]),
    'bernoulli of a probability tensor': ('bool', [False, False, True, False, False, False, False, True]),
    'exponential': ('float64', [1.4605566439669364, 0.2546330758283287, 1.185015410261032, 0.6679248207616795,
        1.5022694934412957]),
    'multinomial without replacement': ('int64', [[1, 3, 2], [3, 2, 0]]),
    'multinomial with replacement': ('int64', [3, 2, 3, 3, 3, 1]),
    'random_ of an int64 scalar': ('int64', 1080378659625705885),
}


def _check(name: str, got: np.ndarray, want) -> None:
    want = np.asarray(want, dtype=got.dtype)
    assert got.shape == want.shape, name
    if name in RTOL:
        np.testing.assert_allclose(got, want, rtol=RTOL[name], atol=0, err_msg=name)
    else:
        np.testing.assert_array_equal(got, want, err_msg=name)


@pytest.mark.parametrize("name", list(CASES))
def test_draws_are_pytorchs(name):
    draw, _ = CASES[name]
    dtype, values = STORED[name]
    got = draw(Generator().manual_seed(SEED))
    assert got.dtype == np.dtype(dtype), name
    _check(name, got, values)


@pytest.mark.torch
def test_the_stored_draws_are_what_pytorch_draws_now(real_torch):
    for name, (draw, torch_draw) in CASES.items():
        theirs = torch_draw(real_torch, real_torch.Generator().manual_seed(SEED)).numpy()
        dtype, values = STORED[name]
        assert theirs.dtype == np.dtype(dtype), name
        _check(name, theirs, values)
        _check(name, draw(Generator().manual_seed(SEED)), theirs)


def test_a_new_generator_starts_from_pytorchs_default_seed():
    g = Generator()
    assert g.initial_seed() == DEFAULT_SEED == 67280421310721
    assert np.array_equal(g.uniform(size=(4,)), Generator().manual_seed(DEFAULT_SEED).uniform(size=(4,)))
    assert repr(g).startswith("<torch._C.Generator object at 0x")


def test_manual_seed_restarts_the_stream_and_keeps_the_whole_seed():
    g = Generator()
    first = g.manual_seed(SEED).normal(size=(3,))            # leaves a spare normal cached
    assert g.manual_seed(SEED) is g and g.initial_seed() == SEED
    assert np.array_equal(g.normal(size=(3,)), first)         # the spare went with the reseed
    big = SEED + (1 << 40)                                    # mt19937(seed) keeps the low 32 bits
    assert Generator().manual_seed(big).initial_seed() == big
    assert np.array_equal(Generator().manual_seed(big).integers(0, 100, (5,)),
                          Generator().manual_seed(SEED).integers(0, 100, (5,)))


def test_state_round_trip_repeats_the_draws_spare_normal_included():
    g = Generator().manual_seed(SEED)
    g.normal(size=(1,))                      # one double of a pair drawn: the other is cached
    state = g.get_state()
    assert isinstance(state, Tensor) and state.array.dtype == np.uint8 and state.array.shape == (5056,)
    after = (g.normal(size=(3,)), g.uniform(size=(4,)), g.integers(0, 1 << 40, (2,)))
    other = Generator().set_state(state)     # another generator takes the whole state
    assert other.initial_seed() == SEED
    again = (other.normal(size=(3,)), other.uniform(size=(4,)), other.integers(0, 1 << 40, (2,)))
    for a, b in zip(after, again):
        assert np.array_equal(a, b)
    assert np.array_equal(g.set_state(state.array).normal(size=(3,)), after[0])   # a bare uint8 array too


def test_set_state_refuses_a_state_of_the_wrong_size():
    with pytest.raises(RuntimeError, match="5056"):
        Generator().set_state(np.zeros(10, np.uint8))


def test_seed_sets_a_fresh_63_bit_seed():
    g = Generator()
    value = g.seed()
    assert 0 <= value < 1 << 63 and g.initial_seed() == value


def test_shapes_and_the_small_cases():
    g = Generator().manual_seed(SEED)
    assert g.uniform(size=()).shape == () and g.normal(size=(2, 0)).shape == (2, 0)
    assert g.permutation(0).tolist() == [] and g.permutation(1).tolist() == [0]
    assert sorted(g.permutation(50).tolist()) == list(range(50))
    assert g.integers(5, size=(100,)).min() >= 0 and g.integers(5, size=(100,)).max() < 5
    rows = g.multinomial(np.ones((3, 6), np.float32), 6, False)
    assert all(sorted(r) == list(range(6)) for r in rows.tolist())    # without replacement: each once
    assert g.random(size=(3,), dtype=np.float64).dtype == np.float64
    assert g.standard_normal(size=(2,)).dtype == np.float32


def _record() -> dict:
    import torch
    assert "dagscope" not in torch.__version__, "run with the real torch, not Dagscope's facade"
    out = {}
    for name, (_, torch_draw) in CASES.items():
        values = torch_draw(torch, torch.Generator().manual_seed(SEED)).numpy()
        out[name] = (values.dtype.name, values.tolist())
    return out


if __name__ == "__main__":
    import textwrap
    import torch as _torch
    print(f"    # recorded from torch {_torch.__version__} (python tests/engine/test_random_pytorch.py)")
    for key, (dtype, values) in _record().items():
        print(textwrap.fill(f"{key!r}: ({dtype!r}, {values!r}),", 112, initial_indent=" " * 4,
                            subsequent_indent=" " * 8, break_on_hyphens=False))
