"""torch's random functions beyond creation (seed, initial_seed, rng state, bernoulli, multinomial), drawing
from the PyTorch-compatible generator (engine.random_pytorch) as PyTorch draws."""
from __future__ import annotations

import numpy as np

from engine.creation import rng
from engine.random_pytorch import default_generator
from engine.tensor import Tensor


def seed() -> int:
    return default_generator.seed()


def initial_seed() -> int:
    return default_generator.initial_seed()


def get_rng_state():
    """The default generator's state, a uint8 tensor to give back to set_rng_state."""
    return default_generator.get_state()


def set_rng_state(new_state) -> None:
    default_generator.set_state(new_state)


def multinomial(input, num_samples: int, replacement: bool = False, *, generator=None):
    """Indices drawn in proportion to the weights in each row of `input` (1-D or 2-D), as PyTorch draws them."""
    probs = input.array
    if probs.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > probs.shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    if not np.isfinite(probs).all() or (probs < 0).any():
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if (probs.sum(axis=-1) <= 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    return Tensor(rng(generator).multinomial(probs, int(num_samples), replacement))


def bernoulli(input, p=None, *, generator=None):
    """0/1 draws with the probabilities in `input` (or the number p), in input's dtype, no gradient."""
    probs = input.array
    if p is None:
        if ((probs < 0) | (probs > 1)).any():
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error "
                               "message be improved?  If so, please report an enhancement request to PyTorch.)")
        draws = rng(generator).bernoulli_tensor(probs)
    else:
        draws = rng(generator).bernoulli(p, probs.shape)
    return Tensor(draws.astype(probs.dtype))
