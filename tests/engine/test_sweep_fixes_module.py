"""Replacing a registered child module or parameter by assignment keeps its place, as in PyTorch's
ordered dicts: `model.fc = nn.Linear(...)` must not move fc to the end of print(model), state_dict()
and parameters() (the order an optimizer and a checkpoint see)."""
import numpy as np

from engine import nn
from engine.nn.parameter import Parameter


class _Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)
        self.act = nn.ReLU()
        self.out = nn.Linear(3, 2)


def test_a_replaced_child_keeps_its_place():
    net = _Net()
    net.fc = nn.Linear(4, 3)
    assert list(net._modules) == ["fc", "act", "out"]
    assert list(net.state_dict()) == ["fc.weight", "fc.bias", "out.weight", "out.bias"]
    assert repr(net).splitlines()[1].strip().startswith("(fc): Linear")


def test_a_child_set_to_none_and_back_keeps_its_place():
    net = _Net()
    net.fc = None
    net.fc = nn.Linear(4, 3)
    assert list(net._modules) == ["fc", "act", "out"]


def test_a_replaced_parameter_keeps_its_place():
    layer = nn.Linear(2, 2)
    replacement = Parameter(np.zeros((2, 2), np.float32))
    layer.weight = replacement
    assert list(layer.state_dict()) == ["weight", "bias"]
    assert [name for name, _ in layer.named_parameters()] == ["weight", "bias"]
    assert layer.weight is replacement


def test_a_sequential_layer_replaced_by_index_keeps_its_place():
    seq = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 1))
    seq[0] = nn.Linear(2, 2, bias=False)
    assert [name for name, _ in seq.named_parameters()] == ["0.weight", "2.weight", "2.bias"]


def test_a_plain_attribute_replaced_by_a_module_becomes_a_child():
    net = _Net()
    net.note = 3
    net.note = nn.Tanh()
    assert list(net._modules) == ["fc", "act", "out", "note"] and "note" not in net.__dict__
