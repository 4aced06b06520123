"""Replacing a registered child module or parameter by assignment keeps its place, as in PyTorch's
ordered dicts: `model.fc = nn.Linear(...)` must not move fc to the end of print(model), state_dict()
and parameters() (the order an optimizer and a checkpoint see). load_state_dict(assign=True) takes the
loaded tensors themselves, as PyTorch's (it copied them, as without assign)."""
import numpy as np

from engine import nn
from engine.nn.parameter import Parameter
from engine.tensor import Tensor


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


def test_load_state_dict_with_assign_takes_the_loaded_tensors():
    layer = nn.Linear(2, 1)
    weight = Tensor(np.ones((1, 2), np.float64))
    layer.load_state_dict({"weight": weight, "bias": Tensor(np.zeros(1, np.float32))}, assign=True)
    assert isinstance(layer.weight, Parameter) and layer.weight.requires_grad
    assert layer.weight.array is weight.array and layer.weight.array.dtype == np.float64
    assert [name for name, _ in layer.named_parameters()] == ["weight", "bias"]


def test_load_state_dict_with_assign_keeps_a_parameters_requires_grad_and_takes_buffers():
    layer = nn.Linear(2, 1)
    layer.weight.requires_grad_(False)
    given = Parameter(np.ones((1, 2), np.float32))
    layer.load_state_dict({"weight": given, "bias": Tensor(np.zeros(1, np.float32))}, assign=True)
    assert layer.weight is given and not given.requires_grad
    norm = nn.BatchNorm1d(2)
    state = norm.state_dict()
    state["running_mean"] = Tensor(np.ones(2, np.float32))
    norm.load_state_dict(state, assign=True)
    assert norm.running_mean is state["running_mean"]


def test_load_state_dict_without_assign_copies_into_the_existing_tensors():
    layer = nn.Linear(2, 1)
    weight = layer.weight
    layer.load_state_dict({"weight": Tensor(np.ones((1, 2), np.float64)), "bias": Tensor(np.zeros(1, np.float32))})
    assert layer.weight is weight and weight.array.dtype == np.float32


def test_a_modules_own_stores_are_plain_dicts_as_in_pytorch():
    net = _Net()
    assert type(net._modules) is dict and type(net.fc._parameters) is dict
    assert repr(net._modules.keys()).startswith("dict_keys(")
