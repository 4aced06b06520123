"""The layers and functions built on the fused ops, called as pasted code calls them, against real
PyTorch (skipped unless it is installed): the same program text runs on Dagscope's torch facade and
on torch, and the values, input gradients, grad_fn names and (for batch norm) running statistics
agree, in float32 and float64."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
if "dagscope" in getattr(torch, "__version__", ""):
    pytest.skip("torch is Dagscope's own facade here, not the real library", allow_module_level=True)

import engine.compat.torch as dagscope_torch  # noqa: E402

pytestmark = pytest.mark.torch

# Each program: (text, input shapes). It sees `torch`, `F`, `nn` and inputs x0, x1 (leaves that
# require grad) and sets `out`; `state` names tensors whose values must agree too.
PROGRAMS = {
    "leaky_relu": ("out = F.leaky_relu(x0, 0.2)", [(3, 4)]),
    "leaky_relu module": ("out = nn.LeakyReLU()(x0)", [(2, 5)]),
    "silu": ("out = nn.SiLU()(x0) * 3", [(3, 4)]),
    "layer_norm": ("out = F.layer_norm(x0, (4,), x1, torch.linspace(-1, 1, 4, dtype=x0.dtype))", [(3, 4), (4,)]),
    "layer_norm two dims": ("out = F.layer_norm(x0, (3, 4))", [(2, 3, 4)]),
    "LayerNorm no bias": ("m = nn.LayerNorm(4, bias=False).to(x0.dtype)\nout = m(x0)", [(2, 3, 4)]),
    "batch_norm train": ("m = nn.BatchNorm1d(3).to(x0.dtype)\nout = m(x0) * x1\n"
                         "state = [m.running_mean, m.running_var]", [(5, 3), (5, 3)]),
    "batch_norm 3d input": ("m = nn.BatchNorm1d(3, momentum=None).to(x0.dtype)\nm(x0)\nout = m(x0)\n"
                            "state = [m.running_mean, m.running_var, m.num_batches_tracked]", [(4, 3, 2)]),
    "batch_norm eval": ("m = nn.BatchNorm2d(2).to(x0.dtype)\nm(x0.detach())\nm.eval()\nout = m(x0)\n"
                        "state = [m.running_mean, m.running_var]", [(3, 2, 2, 2)]),
    "batch_norm functional no affine": ("out = F.batch_norm(x0, None, None, training=True, eps=1e-3)", [(4, 3)]),
    "adaptive_avg_pool2d": ("out = nn.AdaptiveAvgPool2d((3, 2))(x0)", [(2, 3, 7, 5)]),
    "adaptive_avg_pool2d 3-D, None": ("out = F.adaptive_avg_pool2d(x0, (None, 3))", [(2, 4, 6)]),
    "adaptive_avg_pool2d to 1": ("out = nn.AdaptiveAvgPool2d(1)(x0)", [(2, 3, 4, 4)]),
    "sort": ("v, i = torch.sort(x0, dim=0, descending=True)\nout = v * 2\nstate = [i]", [(4, 3)]),
    "sort method": ("out = x0.sort().values\nstate = [x0.sort().indices]", [(3, 5)]),
    "topk": ("r = x0.topk(2, dim=1, largest=False)\nout = r.values\nstate = [r.indices]", [(3, 5)]),
    "smooth_l1_loss": ("out = F.smooth_l1_loss(x0, x1, beta=0.5)", [(3, 4), (3, 4)]),
    "smooth_l1_loss none": ("out = F.smooth_l1_loss(x0, x1, reduction='none')", [(3, 4), (3, 4)]),
    "huber_loss": ("out = nn.HuberLoss(delta=0.7, reduction='sum')(x0, x1)", [(3, 4), (3, 4)]),
    "cross_entropy probabilities": ("out = F.cross_entropy(x0, x1.softmax(1))", [(3, 4), (3, 4)]),
    "cross_entropy probabilities 3d": ("out = F.cross_entropy(x0, x1.softmax(1), label_smoothing=0.1)",
                                       [(2, 3, 4), (2, 3, 4)]),
    "linear 1-D input": ("fc = nn.Linear(4, 3).to(x0.dtype)\nwith torch.no_grad():\n"
                         "    fc.weight.copy_(torch.linspace(-1, 1, 12).reshape(3, 4))\n    fc.bias.fill_(0.5)\n"
                         "out = fc(x0)", [(4,)]),
}


def _run(lib, text, arrays):
    leaves = [lib.tensor(a.copy(), requires_grad=True) for a in arrays]
    namespace = {"torch": lib, "F": lib.nn.functional, "nn": lib.nn, "state": []}
    namespace.update({f"x{i}": t for i, t in enumerate(leaves)})
    lib.manual_seed(0)
    exec(text, namespace)
    out = namespace["out"]
    upstream = lib.tensor(np.random.default_rng(1).standard_normal(tuple(out.shape)).astype(arrays[0].dtype))
    grads = lib.autograd.grad([out], leaves, [upstream], allow_unused=True)
    return out, grads, namespace["state"]


def _node_name(node) -> str:
    name = node.name          # PyTorch's grad_fn.name() is a method; the engine's may be a str
    return name() if callable(name) else name


def _numpy(t):
    return None if t is None else np.asarray(t.detach().numpy())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", list(PROGRAMS))
def test_program_matches_pytorch(name, dtype):
    text, shapes = PROGRAMS[name]
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s).astype(dtype) for s in shapes]
    ours, theirs = _run(dagscope_torch, text, arrays), _run(torch, text, arrays)
    tol = {"rtol": 1e-4, "atol": 1e-5} if dtype == np.float32 else {"rtol": 1e-10, "atol": 1e-12}
    (out, grads, state), (t_out, t_grads, t_state) = ours, theirs
    assert _node_name(out.grad_fn) == type(t_out.grad_fn).__name__
    assert _numpy(out).dtype == _numpy(t_out).dtype
    np.testing.assert_allclose(_numpy(out), _numpy(t_out), **tol, err_msg="output")
    for i, (g, t_g) in enumerate(zip(grads, t_grads)):
        assert (g is None) == (t_g is None), f"gradient {i}"
        if g is not None:
            np.testing.assert_allclose(_numpy(g), _numpy(t_g), **tol, err_msg=f"gradient of x{i}")
    assert len(state) == len(t_state)
    for s, t_s in zip(state, t_state):
        np.testing.assert_allclose(_numpy(s), _numpy(t_s), **tol, err_msg="state")
