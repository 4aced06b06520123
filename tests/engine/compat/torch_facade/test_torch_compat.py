"""The `import torch` facade: the supported names resolve, printing matches PyTorch, and a name
outside the surface fails as `unsupported`, naming itself and listing what exists."""
import numpy as np
import pytest


def _stdout(run, code):
    record = run(code)
    assert record["ok"], record["error"]
    return record["stdout"]


CREATION_AND_PRINTING = (
    "import torch\n"
    "print(torch.zeros(2, 3).shape)\n"
    "print(torch.ones(2, dtype=torch.float64))\n"
    "print(torch.arange(4), torch.arange(0., 1., 0.5))\n"
    "print(torch.linspace(0, 1, 5))\n"
    "print(torch.eye(2))\n"
    "print(torch.full((2,), 7))\n"
    "print(torch.zeros_like(torch.ones(2, dtype=torch.int64)))\n"
    "print(torch.tensor([1.0, 2.0], requires_grad=True))\n"
    "print(torch.randint(0, 10, (32,)).shape, torch.randint(5, (2, 2)).dtype)\n"
    "print(torch.randn(3, 4).dtype, torch.rand(size=(2,)).shape)\n"
    "print(torch.empty(2, 2).shape, torch.float32, torch.long)\n")
# what PyTorch 2.13 printed for it
PYTORCH_CREATION_AND_PRINTING = (
    "torch.Size([2, 3])\n"
    "tensor([1., 1.], dtype=torch.float64)\n"
    "tensor([0, 1, 2, 3]) tensor([0.0000, 0.5000])\n"
    "tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000])\n"
    "tensor([[1., 0.],\n        [0., 1.]])\n"
    "tensor([7, 7])\n"
    "tensor([0, 0])\n"
    "tensor([1., 2.], requires_grad=True)\n"
    "torch.Size([32]) torch.int64\n"
    "torch.float32 torch.Size([2])\n"
    "torch.Size([2, 2]) torch.float32 torch.int64\n")


def test_creation_and_printing(run):
    assert _stdout(run, CREATION_AND_PRINTING) == PYTORCH_CREATION_AND_PRINTING


@pytest.mark.torch
def test_the_stored_printing_is_real_pytorchs(real_torch):
    import contextlib
    import io
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(CREATION_AND_PRINTING.replace("import torch\n", ""), {"torch": real_torch})
    assert out.getvalue() == PYTORCH_CREATION_AND_PRINTING


# What PyTorch 2.13 printed for SEEDED_DRAWS (CPU, `print(torch.randn(3).tolist())` after each seed):
# two runs of the engine agreeing would pass even if manual_seed did nothing.
SEEDED_DRAWS = "import torch\nfor seed in (0, 0, 1):\n    torch.manual_seed(seed)\n    print(torch.randn(3).tolist())\n"
PYTORCH_SEEDED_DRAWS = ("[1.5409960746765137, -0.293428897857666, -2.1787893772125244]\n"
                        "[1.5409960746765137, -0.293428897857666, -2.1787893772125244]\n"
                        "[0.6613521575927734, 0.266924113035202, 0.06167725846171379]\n")


def test_manual_seed_draws_what_pytorch_draws(run):
    assert _stdout(run, SEEDED_DRAWS) == PYTORCH_SEEDED_DRAWS


@pytest.mark.torch
def test_the_recorded_seeded_draws_are_real_pytorchs(real_torch):
    import contextlib
    import io
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(SEEDED_DRAWS.replace("import torch\n", ""), {"torch": real_torch})
    assert out.getvalue() == PYTORCH_SEEDED_DRAWS


def test_from_numpy_shares_memory():
    from engine.compat import torch
    a = np.zeros(3, dtype=np.float32)
    t = torch.from_numpy(a)
    a[0] = 5
    assert t.array[0] == 5 and t.dtype == torch.float32


def test_unsupported_names_fail_loudly(run):
    for code, name in [("import torch\ntorch.fft.fft(torch.ones(2))\n", "torch.fft"),
                       ("import torch.nn as nn\nnn.Conv3d(2, 2, 3)\n", "torch.nn.Conv3d"),
                       ("import torch\ntorch.optim.SparseAdam\n", "torch.optim.SparseAdam"),
                       ("import torch\ntorch.nn.init.sparse_\n", "torch.nn.init.sparse_")]:
        record = run(code)
        assert not record["ok"]
        err = record["error"]
        assert err["kind"] == "unsupported" and err["line"] == 2
        assert err["message"].startswith(f"{name} is not supported by Dagscope. It is ")
        assert "Supported names in " in err["message"]
    message = run("import torch.nn as nn\nnn.Conv3d\n")["error"]["message"]
    assert "Linear" in message and "Sequential" in message


def test_unsupported_submodule_import(run):
    record = run("import torch.distributions\n")
    assert record["error"]["kind"] == "unsupported" and "torch.distributions" in record["error"]["message"]


def test_devices_are_cpu_only(run):
    out = _stdout(run, (
        "import torch\n"
        "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
        "print(device, repr(device))\n"
        "model = torch.nn.Linear(2, 2).to(device)\n"
        "print(type(model).__name__)\n"))
    assert out == "cpu device(type='cpu')\nLinear\n"
    record = run("import torch\ntorch.nn.Linear(2, 2).cuda()\n")
    assert record["error"]["kind"] == "unsupported"


def test_submodules_are_attributes_after_import_torch(run):
    out = _stdout(run, (
        "import torch\n"
        "print(torch.nn.Linear, torch.optim.Adam.__name__, torch.autograd.Function.__name__)\n"
        "from torch.utils.data import DataLoader, TensorDataset\n"
        "from torch.autograd.function import once_differentiable\n"
        "import torch.nn.functional as F\n"
        "print(torch.is_tensor(torch.ones(1)), torch.get_default_dtype())\n"))
    assert out.splitlines()[1] == "True torch.float32"


def test_dataloader_batches_like_pytorch():
    from engine.compat.torch import arange, manual_seed
    from engine.compat.torch.utils.data import DataLoader, TensorDataset
    x = arange(10).reshape(5, 2)
    y = arange(5)
    loader = DataLoader(TensorDataset(x, y), batch_size=2)
    batches = list(loader)
    assert len(loader) == 3 and len(batches) == 3
    xb, yb = batches[0]
    assert xb.array.tolist() == [[0, 1], [2, 3]] and yb.array.tolist() == [0, 1]
    assert batches[2][0].shape == (1, 2)
    assert len(DataLoader(TensorDataset(x, y), batch_size=2, drop_last=True)) == 2
    manual_seed(0)
    seen = sorted(v for _, yb in DataLoader(TensorDataset(x, y), batch_size=2, shuffle=True) for v in yb.tolist())
    assert seen == [0, 1, 2, 3, 4]


def test_dataloader_default_collate_of_custom_dataset():
    from engine.compat.torch.utils.data import DataLoader, Dataset

    class Squares(Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return float(i), i * i

    xb, yb = next(iter(DataLoader(Squares(), batch_size=4)))
    assert repr(xb) == "tensor([0., 1., 2., 3.], dtype=torch.float64)" and repr(yb) == "tensor([0, 1, 4, 9])"


def test_hasattr_and_getattr_default_see_unsupported_names_as_missing(run):
    out = _stdout(run, (
        "import torch\n"
        "print(hasattr(torch.nn, 'Conv3d'), hasattr(torch.nn, 'Linear'), getattr(torch, 'fft', None))\n"))
    assert out == "False True None\n"


def test_facade_submodules_are_attributes_without_their_own_import(run):
    import importlib.util
    if importlib.util.find_spec("engine.compat.torch.jit") is None:
        pytest.skip("torch.jit facade not present")
    out = _stdout(run, "import torch\nprint(callable(torch.jit.trace))\n")
    assert out == "True\n"


def test_legacy_tensor_constructors_and_isinstance(run):
    out = _stdout(run, (
        "import torch\n"
        "print(torch.Tensor([1, 2]), torch.Tensor(2, 3).shape, torch.Tensor())\n"
        "print(torch.LongTensor([1, 2]), torch.FloatTensor([[1, 2]]))\n"
        "x = torch.tensor([1.0])\n"
        "print(isinstance(x, torch.Tensor), isinstance(x, torch.FloatTensor), isinstance(x, torch.LongTensor))\n"
        "print(isinstance(torch.nn.Parameter(x), torch.Tensor), torch.Tensor)\n"))
    assert out == ("tensor([1., 2.]) torch.Size([2, 3]) tensor([])\n"
                   "tensor([1, 2]) tensor([[1., 2.]])\n"
                   "True True False\n"
                   "True <class 'torch.Tensor'>\n")


def test_grad_mode_decorators_with_and_without_parentheses(run):
    out = _stdout(run, (
        "import torch\n"
        "x = torch.ones(1, requires_grad=True)\n"
        "@torch.no_grad\n"
        "def bare(t):\n"
        "    return t * 2\n"
        "@torch.no_grad()\n"
        "def called(t):\n"
        "    return t * 2\n"
        "@torch.inference_mode()\n"
        "def infer(t):\n"
        "    return t * 2\n"
        "with torch.no_grad():\n"
        "    with torch.enable_grad():\n"
        "        inner = x * 2\n"
        "print(bare(x).requires_grad, called(x).requires_grad, infer(x).requires_grad, inner.requires_grad)\n"))
    assert out == "False False False True\n"


def test_print_options_last_one_run(run):
    changed = run("import torch\ntorch.set_printoptions(precision=2, sci_mode=False)\nprint(torch.tensor([1/3, 1e-6]))")
    assert changed["stdout"] == "tensor([0.33, 0.00])\n"
    assert run("import torch\nprint(torch.tensor([1/3]))")["stdout"] == "tensor([0.3333])\n"
    unknown = run("import torch\ntorch.set_printoptions(profile='long')\nprint(torch.tensor([1/3]))")
    assert unknown["stdout"] == "tensor([0.3333])\n"        # as PyTorch, an unknown profile changes nothing


def test_size_stays_a_size_under_tuple_operations():
    from engine.compat.torch_size import Size
    s = Size([2, 3])
    for value, text in [(s + (4,), "torch.Size([2, 3, 4])"), ((1,) + s, "torch.Size([1, 2, 3])"),
                        (s[::-1], "torch.Size([3, 2])"), (s * 2, "torch.Size([2, 3, 2, 3])"),
                        (2 * s, "torch.Size([2, 3, 2, 3])")]:
        assert type(value) is Size and repr(value) == text
    assert s[0] == 2 and type(s[0]) is int and s == (2, 3) and hash(s) == hash((2, 3))
    with pytest.raises(TypeError, match="not list"):
        s + [4]


@pytest.mark.parametrize("data,dtype", [
    ("np.float64(2.5)", "torch.float64"), ("[np.float64(1.5), 2.0]", "torch.float64"),
    ("[np.float32(1), 2.0]", "torch.float32"), ("np.int32(3)", "torch.int32"), ("[np.int32(1), 2]", "torch.int64"),
    ("[np.int32(1), 2.5]", "torch.float32"), ("[torch.tensor(1.0, dtype=torch.float64), torch.tensor(2.0)]",
                                               "torch.float64"),
    ("[torch.tensor(1), torch.tensor(2.5)]", "torch.float32"), ("[[1.0, 2], [3, 4]]", "torch.float32"),
    ("[True, 2]", "torch.int64"), ("[]", "torch.float32"), ("np.array([1], dtype=np.int32)", "torch.int32"),
])
def test_tensor_infers_the_dtype_pytorch_does(run, data, dtype):
    # PyTorch promotes the elements' dtypes; numpy scalars and tensors keep theirs, Python floats are float32.
    assert _stdout(run, f"import numpy as np\nimport torch\nprint(torch.tensor({data}).dtype)") == dtype + "\n"


def test_isclose_is_elementwise_allclose(run):
    out = _stdout(run, "import torch\na = torch.tensor([1.0, 2.0, float('nan')])\n"
                       "print(torch.isclose(a, torch.tensor([1.0, 2.1, float('nan')])))\n"
                       "print(torch.isclose(a, a, equal_nan=True), torch.isclose(a, a + 0.05, atol=0.1).dtype)")
    assert out == "tensor([ True, False, False])\ntensor([True, True, True]) torch.bool\n"


def test_creation_takes_a_one_element_tensor_as_a_number(run):
    out = _stdout(run, "import torch\nprint(torch.full((2,), torch.tensor(3.5)), torch.full_like(torch.ones(1), torch.tensor(2)))\n"
                       "print(torch.tensor([torch.tensor([1.0]), torch.tensor(2.0)]), torch.arange(torch.tensor(2.5)))")
    assert out == "tensor([3.5000, 3.5000]) tensor([2.])\ntensor([1., 2.]) tensor([0., 1., 2.])\n"


@pytest.mark.parametrize("code,error", [
    ("torch.arange(5, 0)", "RuntimeError: upper bound and lower bound inconsistent with step sign"),
    ("torch.arange(0, 5, 0)", "RuntimeError: step must be nonzero"),
    ("torch.tensor([[1, 2], [3]])", "ValueError: expected sequence of length 2 at dim 1 (got 1)"),
    ("torch.tensor([1, None])", "RuntimeError: Could not infer dtype of NoneType"),
    ("torch.ones(2, -1)", "RuntimeError: Trying to create tensor with negative dimension -1: [2, -1]"),
    ("torch.rand(2.0)", "TypeError: rand(): argument 'size' (position 1) must be tuple of ints, not float"),
])
def test_creation_mistakes_raise_pytorchs_errors(run, code, error):
    out = _stdout(run, f"import torch\ntry:\n    {code}\nexcept Exception as e:\n    print(f'{{type(e).__name__}}: {{e}}')")
    assert out == error + "\n"


def test_manual_seed_draws_pytorchs_numbers():
    # Values printed by PyTorch 2.13 on a CPU for the same calls (its Mersenne Twister and kernels).
    from engine import creation, nn
    creation.manual_seed(42)
    assert creation.rand(3).array.tolist() == [0.8822692632675171, 0.9150039553642273, 0.38286375999450684]
    np.testing.assert_array_equal(creation.randn(3).array,                  # < 16 values: double Box-Muller
                                  np.float32([-0.829319179058075, -1.6137069463729858, -0.21470452845096588]))
    np.testing.assert_allclose(creation.randn(17).array[[0, 16]],           # >= 16: blocks of 16, last redrawn
                               [-0.9341631531715393, -0.6011420488357544], rtol=1e-6)
    assert creation.randint(0, 10, (5,)).array.tolist() == [7, 3, 3, 4, 3]
    assert creation.randperm(5).array.tolist() == [2, 3, 0, 1, 4]
    creation.manual_seed(0)
    lin = nn.Linear(2, 2)
    np.testing.assert_array_equal(lin.weight.array, np.float32([[-0.005293981172144413, 0.37932288646698],
                                                                [-0.5819807648658752, -0.5203874707221985]]))
    np.testing.assert_array_equal(lin.bias.array, np.float32([-0.27234524488449097, 0.1896158903837204]))
    assert creation.rand(2, dtype=np.float64).array.tolist() == [0.9207476841219603, 0.6450241201227648]


def test_a_generator_object_is_independent_of_the_default_one(run):
    out = _stdout(run, "import torch\ng = torch.Generator().manual_seed(42)\ntorch.manual_seed(1)\n"
                       "a = torch.rand(2, generator=g)\ntorch.manual_seed(42)\nprint(torch.equal(a, torch.rand(2)), "
                       "g.initial_seed(), torch.initial_seed())")
    assert out == "True 42 42\n"


def test_save_and_load_a_checkpoint_through_a_file(run, tmp_path):
    path = tmp_path / "ckpt.pt"
    out = _stdout(run, (
        "import torch\nimport torch.nn as nn\n"
        "m = nn.Linear(2, 1)\n"
        f"torch.save({{'model': m.state_dict(), 'step': 7}}, {str(path)!r})\n"
        f"ckpt = torch.load({str(path)!r})\n"
        "print(ckpt['step'], torch.equal(ckpt['model']['weight'], m.weight), ckpt['model']['bias'].requires_grad)\n"
        f"torch.save(m, {str(path)!r})\n"
        f"try:\n    torch.load({str(path)!r})\nexcept Exception as e:\n    print(type(e).__name__, str(e).split('.')[0])\n"
        f"print(type(torch.load({str(path)!r}, weights_only=False)).__name__)\n"))
    assert out == "7 True False\nUnpicklingError Weights only load failed\nLinear\n"
