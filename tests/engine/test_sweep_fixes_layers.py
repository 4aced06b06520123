"""nn.Unflatten keeps unflattened_size as given (a list, a tuple or a torch.Size), so its repr is
PyTorch's (`unflattened_size=torch.Size([2, 2])`), and unflattens with any of them."""
import numpy as np
import pytest

from engine import nn
from engine.compat.torch_size import Size
from engine.tensor import Tensor


@pytest.mark.parametrize("sizes,shown", [([2, 2], "[2, 2]"), ((2, 2), "(2, 2)"),
                                         (Size([2, 2]), "torch.Size([2, 2])")])
def test_unflatten_shows_the_size_it_was_given_and_unflattens(sizes, shown):
    layer = nn.Unflatten(1, sizes)
    assert repr(layer) == f"Unflatten(dim=1, unflattened_size={shown})"
    assert layer(Tensor(np.ones((3, 4), np.float32))).array.shape == (3, 2, 2)
