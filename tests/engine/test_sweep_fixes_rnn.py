"""Recurrent layers lay out their output as PyTorch's RNN.cpp does: a bidirectional layer concatenates the
two directions' stacked outputs (grad_fn CatBackward0, not a stack of per-step concatenations), and
dropout between layers acts on a layer's whole output, in training only."""
import numpy as np
import pytest

from engine import creation, nn
from engine.tensor import Tensor


@pytest.mark.parametrize("cls", [nn.RNN, nn.LSTM, nn.GRU])
def test_a_bidirectional_output_is_the_directions_concatenated(cls):
    creation.manual_seed(0)
    module = cls(3, 2, num_layers=2, bidirectional=True)
    output, hidden = module(Tensor(np.random.default_rng(1).standard_normal((4, 2, 3)).astype(np.float32)))
    assert type(output.grad_fn).__name__ == "CatBackward0"
    h_n = hidden[0] if cls is nn.LSTM else hidden
    # The last layer's forward direction ends at the last step, its reverse direction at the first.
    np.testing.assert_array_equal(output.array[-1, :, :2], h_n.array[2])
    np.testing.assert_array_equal(output.array[0, :, 2:], h_n.array[3])


@pytest.mark.parametrize("cls", [nn.RNN, nn.GRU])
def test_a_unidirectional_output_is_the_steps_stacked(cls):
    output, _ = cls(3, 2)(Tensor(np.ones((4, 2, 3), np.float32)))
    assert type(output.grad_fn).__name__ == "StackBackward0"


def test_dropout_between_layers_acts_only_in_training():
    creation.manual_seed(0)
    module = nn.GRU(2, 64, num_layers=2, dropout=0.5)
    x = Tensor(np.ones((3, 1, 2), np.float32))
    trained, _ = module(x)
    module.eval()
    first, _ = module(x)
    second, _ = module(x)
    np.testing.assert_array_equal(first.array, second.array)
    assert not np.array_equal(trained.array, first.array)
