"""nn.Module: registration, names for the recorder, iteration, state_dict, hooks, repr as PyTorch's."""
import math

import numpy as np
import pytest

from engine import creation, nn
from engine.nn import init
from engine.nn.parameter import Parameter
from engine.tensor import Tensor


def mlp_class(nn):
    """The MLP of these tests, made of the given library's nn (Dagscope's, or real PyTorch's to check a repr)."""
    class MLP(nn.Module):
        def __init__(self, d_in, d_hid, d_out):
            super().__init__()
            self.fc1 = nn.Linear(d_in, d_hid)
            self.fc2 = nn.Linear(d_hid, d_out)

        def forward(self, x):
            return self.fc2(self.fc1(x))
    return MLP


MLP = mlp_class(nn)

# (module, PyTorch 2.13's repr of it); test_the_stored_reprs_are_real_pytorchs makes each with real torch
REPRS = [
    ("MLP(100, 128, 10)",
     "MLP(\n"
     "  (fc1): Linear(in_features=100, out_features=128, bias=True)\n"
     "  (fc2): Linear(in_features=128, out_features=10, bias=True)\n"
     ")"),
    ("nn.Sequential(nn.Conv2d(1, 32, 3), nn.ReLU(), nn.Flatten(), nn.Dropout(0.25), nn.Linear(4, 2, bias=False), "
     "nn.LogSoftmax(dim=1))",
     "Sequential(\n"
     "  (0): Conv2d(1, 32, kernel_size=(3, 3), stride=(1, 1))\n"
     "  (1): ReLU()\n"
     "  (2): Flatten(start_dim=1, end_dim=-1)\n"
     "  (3): Dropout(p=0.25, inplace=False)\n"
     "  (4): Linear(in_features=4, out_features=2, bias=False)\n"
     "  (5): LogSoftmax(dim=1)\n"
     ")"),
    ("nn.Conv2d(3, 16, kernel_size=5, stride=2, padding=1, bias=False)",
     "Conv2d(3, 16, kernel_size=(5, 5), stride=(2, 2), padding=(1, 1), bias=False)"),
    ("nn.LayerNorm(10)", "LayerNorm((10,), eps=1e-05, elementwise_affine=True, bias=True)"),
    ("nn.BatchNorm1d(8)", "BatchNorm1d(8, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)"),
    ("nn.Embedding(10, 3, padding_idx=0)", "Embedding(10, 3, padding_idx=0)"),
    ("nn.GELU()", "GELU(approximate='none')"),
    ("nn.Softmax(dim=-1)", "Softmax(dim=-1)"),
    ("nn.Tanh()", "Tanh()"), ("nn.Sigmoid()", "Sigmoid()"), ("nn.Identity()", "Identity()"),
    ("nn.MSELoss()", "MSELoss()"), ("nn.CrossEntropyLoss()", "CrossEntropyLoss()"),
    # a ModuleList folds repeated blocks
    ("nn.ModuleList([nn.Linear(2, 2) for _ in range(3)] + [nn.ReLU()])",
     "ModuleList(\n"
     "  (0-2): 3 x Linear(in_features=2, out_features=2, bias=True)\n"
     "  (3): ReLU()\n"
     ")"),
    ("nn.Parameter(ones(2))", "Parameter containing:\ntensor([1., 1.], requires_grad=True)"),
]


@pytest.mark.parametrize("module,expected", REPRS)
def test_repr_matches_pytorch(module, expected):
    assert repr(eval(module, {"nn": nn, "ones": creation.ones, "MLP": MLP})) == expected


@pytest.mark.torch
@pytest.mark.parametrize("module,expected", REPRS)
def test_the_stored_reprs_are_real_pytorchs(real_torch, module, expected):
    made = eval(module, {"nn": real_torch.nn, "ones": real_torch.ones, "MLP": mlp_class(real_torch.nn)})
    assert repr(made) == expected


def test_parameter_is_a_leaf_that_requires_grad():
    p = nn.Parameter(creation.ones(2))
    assert p.is_leaf and p.requires_grad


def test_parameters_carry_qualified_names_and_module_paths():
    outer = nn.Sequential()
    outer.add_module("mlp", MLP(3, 4, 2))
    names = [n for n, _ in outer.named_parameters()]
    assert names == ["mlp.fc1.weight", "mlp.fc1.bias", "mlp.fc2.weight", "mlp.fc2.bias"]
    w = outer.mlp.fc1.weight
    assert (w._name, w._module) == ("mlp.fc1.weight", "mlp.fc1")
    assert outer.mlp.fc2._qualname == "mlp.fc2"


def test_iteration_helpers():
    m = MLP(3, 4, 2)
    assert [n for n, _ in m.named_children()] == ["fc1", "fc2"]
    assert [n for n, _ in m.named_modules()] == ["", "fc1", "fc2"]
    assert len(list(m.parameters())) == 4
    bn = nn.BatchNorm1d(3)
    assert [n for n, _ in bn.named_buffers()] == ["running_mean", "running_var", "num_batches_tracked"]
    assert list(bn.state_dict()) == ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"]


def test_shared_parameter_listed_once():
    m = MLP(2, 2, 2)
    m.fc2.weight = m.fc1.weight
    assert len(list(m.parameters())) == 3


def test_train_eval_propagates():
    m = nn.Sequential(nn.Linear(2, 2), nn.Dropout())
    m.eval()
    assert not m.training and not m[1].training
    m.train()
    assert m[1].training


def test_state_dict_roundtrip_and_errors():
    a, b = MLP(3, 4, 2), MLP(3, 4, 2)
    result = b.load_state_dict(a.state_dict())
    assert repr(result) == "<All keys matched successfully>"
    assert np.array_equal(a.fc1.weight.array, b.fc1.weight.array)
    state = a.state_dict()
    assert not state["fc1.weight"].requires_grad          # detached, like PyTorch's
    del state["fc2.bias"]
    state["extra"] = creation.zeros(1)
    with pytest.raises(RuntimeError) as err:
        b.load_state_dict(state)
    assert str(err.value) == ('Error(s) in loading state_dict for MLP:\n\tMissing key(s) in state_dict: '
                              '"fc2.bias". \n\tUnexpected key(s) in state_dict: "extra". ')
    keys = b.load_state_dict(state, strict=False)
    assert keys.missing_keys == ["fc2.bias"] and keys.unexpected_keys == ["extra"]
    with pytest.raises(RuntimeError, match=r"size mismatch for fc1.weight: copying a param with shape "
                                           r"torch.Size\(\[4, 4\]\) from checkpoint, the shape in current "
                                           r"model is torch.Size\(\[4, 3\]\)."):
        b.load_state_dict({**a.state_dict(), "fc1.weight": creation.zeros(4, 4)})


def test_batchnorm_count_is_kept_unless_the_state_dict_says_version_2():
    """PyTorch's _NormBase: a state_dict without version-2 metadata for the BatchNorm (a plain dict)
    keeps the module's num_batches_tracked instead of reporting it missing; one from state_dict() does not."""
    model = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
    model[1].num_batches_tracked.array[...] = 3
    state = model.state_dict()
    assert state._metadata == {"": {"version": 1}, "0": {"version": 1}, "1": {"version": 2}}
    del state["1.num_batches_tracked"]
    assert model.load_state_dict(state, strict=False).missing_keys == ["1.num_batches_tracked"]
    plain = dict(state)
    assert repr(model.load_state_dict(plain)) == "<All keys matched successfully>"
    assert "1.num_batches_tracked" not in plain                 # the caller's dict is left as it was
    assert int(model[1].num_batches_tracked.array) == 3
    partial = model.load_state_dict({"0.weight": creation.zeros(2, 2)}, strict=False)
    assert partial.missing_keys == ["0.bias", "1.weight", "1.bias", "1.running_mean", "1.running_var"]


def test_registration_refuses_names_pytorch_refuses():
    """A name already taken would shadow (or be shadowed by) the attribute: PyTorch raises instead."""
    m = MLP(2, 2, 2)
    m.scale = 3
    for register in (lambda n: m.register_parameter(n, None), lambda n: m.register_buffer(n, None),
                     lambda n: m.add_module(n, nn.ReLU())):
        with pytest.raises(KeyError, match="attribute 'scale' already exists"):
            register("scale")
        with pytest.raises(KeyError, match="be empty string"):
            register("")
    with pytest.raises(KeyError, match="attribute 'fc1' already exists"):    # a submodule's name
        m.register_buffer("fc1", creation.zeros(1))
    with pytest.raises(TypeError, match="parameter name should be a string. Got int"):
        m.register_parameter(1, None)
    m.register_buffer("stats", creation.zeros(1))
    m.register_buffer("stats", creation.ones(1))          # the same buffer may be registered again
    assert float(m.stats.array[0]) == 1.0 and isinstance(m.fc1, nn.Linear)
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like, got <class 'list'>."):
        m.load_state_dict([1, 2])
    state = {k: v.array.tolist() for k, v in m.state_dict().items()}
    with pytest.raises(RuntimeError, match='While copying the parameter named "fc1.weight", expected torch.Tensor'):
        m.load_state_dict(state)


def test_attribute_errors_like_pytorch():
    m = MLP(2, 2, 2)
    with pytest.raises(AttributeError, match="'MLP' object has no attribute 'fc3'"):
        m.fc3

    class Forgot(nn.Module):
        def __init__(self):
            self.fc = nn.Linear(2, 2)
    with pytest.raises(AttributeError, match=r"cannot assign module before Module.__init__\(\) call"):
        Forgot()


def test_forward_hooks_and_pre_hooks():
    class Double(nn.Module):
        def forward(self, x):
            return x * 2
    m = Double()
    seen = []
    handle = m.register_forward_hook(lambda mod, inp, out: seen.append(out.array.tolist()))
    pre = m.register_forward_pre_hook(lambda mod, inp: (inp[0] + 1,))
    out = m(creation.tensor([1.0]))
    assert out.array.tolist() == [4.0] and seen == [[4.0]]
    handle.remove()
    pre.remove()
    m(creation.tensor([1.0]))
    assert seen == [[4.0]]



def test_hooks_with_kwargs_and_prepend():
    class Scaled(nn.Module):
        def forward(self, x, scale=1.0):
            return x * scale
    m = Scaled()
    order = []
    m.register_forward_hook(lambda mod, args, out: order.append("first"))
    late = m.register_forward_hook(lambda mod, args, out: order.append("prepended"), prepend=True)
    m.register_forward_pre_hook(lambda mod, args, kwargs: (args, {"scale": kwargs["scale"] * 10}), with_kwargs=True)
    m.register_forward_hook(lambda mod, args, kwargs, out: out + kwargs["scale"], with_kwargs=True)
    out = m(creation.tensor([1.0]), scale=2.0)
    assert out.array.tolist() == [40.0] and order == ["prepended", "first"]
    late.remove()
    assert late.id not in m._forward_hooks
    m.register_forward_pre_hook(lambda mod, args, kwargs: args, with_kwargs=True)
    with pytest.raises(RuntimeError, match="must return None or a tuple of \\(new_args, new_kwargs\\)"):
        m(creation.tensor([1.0]), scale=2.0)

def test_call_pushes_module_path():
    from engine import nn_context
    paths = []

    class Probe(nn.Module):
        def forward(self, x):
            paths.append(nn_context.current_module_path())
            return x

    outer = nn.Sequential(Probe(), nn.Sequential(Probe()))
    outer(creation.zeros(1))
    assert paths == ["0", "1.0"] and nn_context.current_module_path() is None


def test_zero_grad_and_apply():
    m = MLP(2, 2, 2)
    for p in m.parameters():
        p.grad = Tensor(np.ones(p.array.shape, np.float32))
    m.zero_grad(set_to_none=False)
    assert all(p.grad is not None and not p.grad.array.any() for p in m.parameters())
    m.zero_grad()
    assert all(p.grad is None for p in m.parameters())
    m.apply(lambda mod: isinstance(mod, nn.Linear) and init.zeros_(mod.weight))
    assert not m.fc1.weight.array.any()


def test_linear_default_init_bounds_follow_pytorch():
    creation.manual_seed(0)
    lin = nn.Linear(400, 300)
    bound = 1 / math.sqrt(400)            # kaiming_uniform(a=sqrt(5)) gives the same bound as the bias
    for p in (lin.weight, lin.bias):
        assert p.array.dtype == np.float32
        assert -bound <= p.array.min() and p.array.max() <= bound
        assert p.array.max() > 0.95 * bound and p.array.min() < -0.95 * bound
    creation.manual_seed(0)
    assert np.array_equal(nn.Linear(400, 300).weight.array, lin.weight.array)   # seeded: repeatable


def test_init_functions():
    creation.manual_seed(1)
    w = nn.Parameter(creation.zeros(200, 100))
    init.xavier_uniform_(w)
    a = math.sqrt(6 / 300)
    assert -a <= w.array.min() and w.array.max() <= a
    init.kaiming_normal_(w, nonlinearity="relu")
    assert abs(w.array.std() - math.sqrt(2 / 100)) < 0.01
    init.constant_(w, 0.5)
    assert (w.array == 0.5).all()
    assert init.calculate_gain("tanh") == 5 / 3 and init.calculate_gain("leaky_relu", 0.2) == math.sqrt(2 / 1.04)
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        init.xavier_uniform_(creation.zeros(3))


def test_deepcopy_keeps_names_and_copies_data():
    import copy
    m = MLP(2, 3, 1)
    twin = copy.deepcopy(m)
    assert twin.fc1.weight._name == "fc1.weight" and isinstance(twin.fc1.weight, nn.Parameter)
    assert not np.shares_memory(twin.fc1.weight.array, m.fc1.weight.array)


def test_clip_grad_norm_scales_all_gradients_together():
    from engine.nn.utils import clip_grad_norm_, clip_grad_value_
    a, b = nn.Parameter(creation.zeros(2)), nn.Parameter(creation.zeros(1))
    a.grad, b.grad = creation.tensor([3.0, 0.0]), creation.tensor([4.0])
    total = clip_grad_norm_([a, b], max_norm=1.0)
    assert total.item() == pytest.approx(5.0)
    coef = 1.0 / (5.0 + 1e-6)
    np.testing.assert_allclose(a.grad.array, [3.0 * coef, 0.0], rtol=1e-6)
    np.testing.assert_allclose(b.grad.array, [4.0 * coef], rtol=1e-6)
    clip_grad_value_([a], 0.1)
    np.testing.assert_allclose(a.grad.array, [0.1, 0.0], rtol=1e-6)


def test_full_backward_hooks_see_grad_input_and_grad_output():
    lin = nn.Linear(3, 2)
    seen = []
    lin.register_full_backward_hook(lambda m, gin, gout: seen.append((gin, gout)))
    x = creation.randn(4, 3, requires_grad=True)
    out = lin(x)
    assert out.grad_fn.name == "BackwardHookFunctionBackward"
    (out * 2).sum().backward()
    (gin,), (gout,) = seen[0]
    np.testing.assert_allclose(gout.array, np.full((4, 2), 2.0))
    np.testing.assert_allclose(gin.array, gout.array @ lin.weight.array, rtol=1e-6)
    np.testing.assert_allclose(x.grad.array, gin.array)


def test_backward_hooks_can_replace_gradients_and_see_no_input_grad():
    lin = nn.Linear(2, 2)
    calls = []
    lin.register_full_backward_pre_hook(lambda m, gout: (gout[0] * 0,))
    lin.register_full_backward_hook(lambda m, gin, gout: calls.append(gin))
    lin(creation.ones(1, 2)).sum().backward()
    assert calls == [(None,)]                      # the input needs no gradient
    assert not lin.weight.grad.array.any()          # the pre-hook zeroed grad_output


def test_pytorch_module_methods_left_out_fail_as_unsupported():
    from engine.errors import UnsupportedError
    m = MLP(2, 2, 2)
    assert not hasattr(m, "compile")
    with pytest.raises(UnsupportedError, match=r"nn.Module.bfloat16 is not supported by Dagscope \(used on MLP\)"):
        m.bfloat16()
    assert nn.BatchNorm1d(2).get_buffer("running_var").array.tolist() == [1.0, 1.0]


def test_parameter_containers_register_and_name_their_parameters():
    from engine.nn.container import ParameterDict, ParameterList

    class Poly(nn.Module):
        def __init__(self):
            super().__init__()
            self.coeffs = ParameterList([creation.tensor([1.0]), creation.tensor([2.0])])
            self.extra = ParameterDict({"b": creation.tensor([3.0]), "a": creation.tensor([4.0])})

    poly = Poly()
    assert [n for n, _ in poly.named_parameters()] == ["coeffs.0", "coeffs.1", "extra.a", "extra.b"]
    assert isinstance(poly.coeffs[1], nn.Parameter) and poly.coeffs[-1]._name == "coeffs.1"
    assert repr(poly.extra) == ("ParameterDict(\n    (a): Parameter containing: [torch.FloatTensor of size 1]\n"
                                "    (b): Parameter containing: [torch.FloatTensor of size 1]\n)")
    assert repr(poly.coeffs[:1]) == "ParameterList(  (0): Parameter containing: [torch.float32 of size 1])"
    del poly.extra["a"]
    assert [n for n, _ in poly.named_parameters()] == ["coeffs.0", "coeffs.1", "extra.b"]


# Replacing a registered child module or parameter by assignment keeps its place, as in PyTorch's
# ordered dicts: `model.fc = nn.Linear(...)` must not move fc to the end of print(model), state_dict()
# and parameters() (the order an optimizer and a checkpoint see). load_state_dict(assign=True) takes the
# loaded tensors themselves, as PyTorch's (it copied them, as without assign).
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
