# Saving and restoring random state: torch.get_rng_state/set_rng_state (including a cached normal) and
# Generator.get_state/set_state replay the same draws.
import torch
torch.manual_seed(3)
torch.randn(3)
state = torch.get_rng_state()
a, b = torch.rand(4), torch.randn(1)
torch.set_rng_state(state)
print(torch.equal(a, torch.rand(4)), torch.equal(b, torch.randn(1)), state.dtype, state.shape)
g = torch.Generator().manual_seed(9)
s = g.get_state()
x = torch.randint(0, 100, (5,), generator=g)
g.set_state(s)
print(torch.equal(x, torch.randint(0, 100, (5,), generator=g)), x)
print(type(s).__name__, s.shape, s.dtype)
