"""jax.random against Threefry-2x32's published known answers (Random123's kat_vectors, as JAX's own
tests use) and numbers real JAX 0.10.2 printed (jax_threefry_partitionable on, its default); whole
programs are in tests/engine/jax_sweep/20_random.py and 21_random_transforms.py."""
import numpy as np
import pytest

from engine.compat import jax
from engine.compat.jax import _threefry as fry
from engine.compat.jax import numpy as jnp
from engine.compat.jax import random


@pytest.mark.parametrize("key, count, expected", [
    ((0, 0), (0, 0), (0x6B200159, 0x99BA4EFE)),
    ((0xFFFFFFFF, 0xFFFFFFFF), (0xFFFFFFFF, 0xFFFFFFFF), (0x1CB996FC, 0xBB002BE7)),
    ((0x13198A2E, 0x03707344), (0x243F6A88, 0x85A308D3), (0xC4923A9C, 0x483DF7A0)),
])
def test_threefry2x32_known_answers(key, count, expected):
    k0, k1 = np.uint32(key[0]), np.uint32(key[1])
    out = fry.threefry2x32(np, k0, k1, np.array([count[0]], np.uint32), np.array([count[1]], np.uint32))
    assert (int(out[0][0]), int(out[1][0])) == expected


def test_keys_split_and_uniform_are_jaxs_bits():
    key = random.PRNGKey(0)
    assert key.dtype == np.uint32 and key.tolist() == [0, 0]
    assert random.split(key).tolist() == [[1797259609, 2579123966], [928981903, 3453687069]]
    assert random.fold_in(key, 7).tolist() == [2716826189, 292468403]
    u = random.uniform(key, (3,))
    assert np.asarray(u).tolist() == np.array([0.947667, 0.9785799, 0.33229148], np.float32).tolist()
    assert random.PRNGKey(-1).tolist() == [0, 4294967295] and random.PRNGKey(2 ** 32 + 5).tolist() == [0, 5]


def test_fused_multiply_add_rounds_once():
    a, b = np.array([1 + 2 ** -12], np.float32), np.array([1 + 2 ** -12], np.float32)
    c = np.array([-1.0], np.float32)
    assert fry.fma(a, b, c)[0] == np.float32(2 ** -11 + 2 ** -24)       # a*b+c exactly: not (a*b)+c
    assert (a * b + c)[0] == np.float32(2 ** -11)


def test_a_jitted_function_draws_from_its_key_argument():
    f = jax.jit(lambda k: random.uniform(k, (3,)))
    assert np.asarray(f(random.PRNGKey(0))).tolist() == np.asarray(random.uniform(random.PRNGKey(0), (3,))).tolist()
    assert np.asarray(f(random.PRNGKey(1))).tolist() == np.asarray(random.uniform(random.PRNGKey(1), (3,))).tolist()
    split = jax.jit(lambda k: random.split(k, 3))(random.key(5))
    assert random.key_data(split).tolist() == random.key_data(random.split(random.key(5), 3)).tolist()


def test_random_values_are_constants_for_grad_and_vmap_maps_keys():
    noise = random.normal(random.PRNGKey(0), (3,))
    g = jax.grad(lambda x: (x * random.normal(random.PRNGKey(0), (3,))).sum())(1.0)
    assert float(g) == pytest.approx(float(noise.sum()))
    keys = random.split(random.PRNGKey(0), 3)
    batched = jax.vmap(lambda k: random.uniform(k, (2,)))(keys)
    assert np.asarray(batched).tolist() == [np.asarray(random.uniform(k, (2,))).tolist() for k in keys]


def test_a_batch_of_keys_is_refused_as_jax_refuses_it():
    with pytest.raises(ValueError, match=r"normal accepts a single key, but was given a key array of shape \(3, 2\)"):
        random.normal(random.split(random.PRNGKey(0), 3), (2,))
    with pytest.raises(TypeError, match="invalid PRNG key"):
        random.uniform(jnp.array([1.0, 2.0]))
