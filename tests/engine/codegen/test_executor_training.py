"""Compiled training: forward and backward both run compiled kernels (from graph autodiff), and an
ordinary loop with loss.backward() and opt.step() matches eager training step for step."""
import copy

import numpy as np
import pytest

import engine
from engine import nn, optim
from engine.capture.tracing import trace_graph
from engine.codegen import cc
from engine.codegen.training import CompiledAutograd

BACKENDS = ["c", "numpy"] if cc.have_compiler() else ["numpy"]


pytestmark = pytest.mark.usefixtures("kernel_cache")       # tests/engine/conftest.py


class WithLoss(nn.Module):
    def __init__(self, model, loss):
        super().__init__()
        self.model = model
        self.loss = loss

    def forward(self, x, y):
        return self.loss(self.model(x), y)


def _model():
    engine.manual_seed(0)
    return nn.Sequential(nn.Linear(12, 16), nn.GELU(approximate="tanh"), nn.Linear(16, 16), nn.Tanh(),
                         nn.Linear(16, 4))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("loss", ["cross_entropy", "mse"])
def test_compiled_training_equals_eager_training(backend, loss):
    rng = np.random.default_rng(0)
    x = engine.tensor(rng.standard_normal((8, 12)).astype(np.float32))
    if loss == "mse":
        y, loss_fn = engine.tensor(rng.standard_normal((8, 4)).astype(np.float32)), nn.MSELoss()
    else:
        y, loss_fn = engine.tensor(rng.integers(0, 4, 8)), nn.CrossEntropyLoss()
    eager = _model()
    compiled_model = copy.deepcopy(eager)
    wrapped = WithLoss(compiled_model, loss_fn)
    graph, _, _, state_names = trace_graph(wrapped, (x, y))
    params = dict(wrapped.named_parameters())
    param_ids = [n.id for n in graph.placeholders if n.role == "param"]
    step_fn = CompiledAutograd(graph, wrt=param_ids, backend=backend)

    opt_e = optim.SGD(eager.parameters(), lr=0.1, momentum=0.9)
    opt_c = optim.SGD(compiled_model.parameters(), lr=0.1, momentum=0.9)
    for _ in range(4):
        opt_e.zero_grad()
        loss_e = loss_fn(eager(x), y)
        loss_e.backward()
        opt_e.step()

        opt_c.zero_grad()
        (loss_c,) = step_fn(x, y, *[params[n] for n in state_names])
        assert type(loss_c.grad_fn).__name__ == loss_c.grad_fn.name() == "CompiledFunctionBackward"   # as PyTorch
        loss_c.backward()
        for (name, pe), pc in zip(eager.named_parameters(), compiled_model.parameters()):
            np.testing.assert_allclose(pc.grad.array, pe.grad.array, rtol=2e-4, atol=1e-6, err_msg=name)
        opt_c.step()
        np.testing.assert_allclose(loss_c.array, loss_e.array, rtol=1e-5)
    for pe, pc in zip(eager.parameters(), compiled_model.parameters()):
        np.testing.assert_allclose(pc.array, pe.array, rtol=1e-4, atol=1e-6)
    assert {k["language"] for c in step_fn.compiled for k in c.kernels} == {backend}
    assert step_fn.backward.kernels and step_fn.backward.retraces == []   # backward ran kernels too


def test_without_grad_only_the_forward_runs():
    rng = np.random.default_rng(1)
    model = _model()
    x = engine.tensor(rng.standard_normal((3, 12)).astype(np.float32))
    graph, _, _, names = trace_graph(model, (x,))
    fn = CompiledAutograd(graph, wrt=[n.id for n in graph.placeholders if n.role == "param"])
    params = dict(model.named_parameters())
    with engine.no_grad():
        (out,) = fn(x, *[params[n] for n in names])
    assert out.grad_fn is None
    np.testing.assert_allclose(out.array, model(x).array, rtol=1e-5, atol=1e-6)


SNIPPET = '''
import torch, copy
import torch.nn as nn
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.GELU(approximate="tanh"), nn.Linear(16, 3))
ref = copy.deepcopy(model)
cmodel = torch.compile(model)
opt, ropt = torch.optim.SGD(model.parameters(), lr=0.1), torch.optim.SGD(ref.parameters(), lr=0.1)
x, y = torch.randn(32, 8), torch.randint(0, 3, (32,))
lossf = nn.CrossEntropyLoss()
for step in range(3):
    for m, o in ((cmodel, opt), (ref, ropt)):
        o.zero_grad()
        loss = lossf(m(x), y)
        loss.backward()
        o.step()
print(max((a - b).abs().max().item() for a, b in zip(model.parameters(), ref.parameters())) < 1e-5)
'''


def test_pasted_torch_compile_records_its_kernels_and_timings(run):
    record = run(SNIPPET)
    assert record["ok"], record["error"]
    assert record["stdout"].strip() == "True"            # compiled training tracked eager training
    static = [g for g in record["graphs"] if g["kind"] == "static" and g["capture"] == "compile"]
    assert static
    g = static[0]
    backend = "c" if cc.have_compiler() else "numpy"
    assert {k["graph"] for k in g["kernels"]} == {"forward", "backward"}
    assert all(k["language"] == backend and k["source"] and k["nodes"] for k in g["kernels"])
    t = g["timings"]
    assert t["backend"] == backend and t["eager_ms"] > 0 and t["compiled_ms"] > 0 and t["compile_ms"] >= 0


@pytest.mark.skipif(not cc.have_compiler(), reason="no C compiler")
def test_forward_and_backward_compile_as_one_module_or_fall_back_together(tmp_path, monkeypatch):
    from engine.codegen import loader
    rng = np.random.default_rng(2)
    model = _model()
    x = engine.tensor(rng.standard_normal((3, 12)).astype(np.float32))
    graph, _, _, names = trace_graph(model, (x,))
    wrt = [n.id for n in graph.placeholders if n.role == "param"]
    fn = CompiledAutograd(graph, wrt=wrt)
    assert fn.forward.current.module.key == fn.backward.current.module.key    # one compiler run
    assert {k["name"] for k in fn.forward.kernels}.isdisjoint(k["name"] for k in fn.backward.kernels)

    monkeypatch.setenv("DAGSCOPE_KERNEL_CACHE", str(tmp_path))             # nothing cached
    loader.forget_loaded()

    def refuse(description):
        raise cc.CompileError("compile service unavailable")
    cc.set_compiler_service(refuse)
    try:
        fn = CompiledAutograd(graph, wrt=wrt)
    finally:
        cc.set_compiler_service(None)
    assert fn.forward.backend == fn.backward.backend == "numpy"
    assert "unavailable" in fn.forward.fallback_reason
    params = dict(model.named_parameters())
    (out,) = fn(x, *[params[n] for n in names])
    out.sum().backward()
    np.testing.assert_allclose(out.array, model(x).array, rtol=1e-5, atol=1e-6)
    assert all(p.grad is not None for p in model.parameters())


@pytest.mark.parametrize("backend", BACKENDS)
def test_interpreted_and_compiled_runners_share_one_autograd_wrapper(backend):
    """Both runners are AutogradRunners: the same node (CompiledFunctionBackward), the same
    gradients, and a non-differentiable second output (argmax) passed through untouched."""
    from engine.codegen.training import AutogradRunner, InterpretedAutograd
    from engine.ir.graph import Graph
    g = Graph("two_outputs")
    x = g.placeholder("x", (5, 3), np.float32)
    w = g.placeholder("w", (3, 4), np.float32, role="param")
    z = g.call("tanh", g.call("matmul", x, w))
    g.output(g.call("sum", g.call("mul", z, z)), g.call("argmax", z, dim=1))
    rng = np.random.default_rng(4)
    xa, wa = rng.standard_normal((5, 3)).astype(np.float32), rng.standard_normal((3, 4)).astype(np.float32)
    grads = []
    for runner in (InterpretedAutograd(g, [w.producer.id]), CompiledAutograd(g, [w.producer.id], backend=backend)):
        assert isinstance(runner, AutogradRunner)
        wt = engine.tensor(wa, requires_grad=True)
        loss, index = runner(engine.tensor(xa), wt)
        assert loss.grad_fn.name == "CompiledFunctionBackward" and index.grad_fn is None
        np.testing.assert_array_equal(index.array, np.argmax(np.tanh(xa @ wa), axis=1))
        loss.backward()
        grads.append(wt.grad.array)
    z_ref = np.tanh(xa @ wa)
    np.testing.assert_allclose(grads[0], xa.T @ (2 * z_ref * (1 - z_ref ** 2)), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("backend", BACKENDS)
def test_compiled_convolutions_train_like_eager(backend):
    """Convolutions with bias, padding and stride run in their planned buffers (im2col scratch,
    one BLAS product): the compiled step's loss and gradients equal eager autograd's, twice over
    (the second call reuses the buffers the first one wrote)."""
    engine.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 4, 3, stride=2), nn.Tanh())
    wrapped = WithLoss(model, lambda out, target: ((out - target) ** 2).sum())
    rng = np.random.default_rng(1)
    x = engine.tensor(rng.standard_normal((5, 3, 12, 12)).astype(np.float32))
    y = engine.tensor(rng.standard_normal((5, 4, 5, 5)).astype(np.float32))
    graph, _, _, names = trace_graph(wrapped, (x, y))
    params = dict(wrapped.named_parameters())
    ordered = [params[n] for n in names]
    compiled = CompiledAutograd(graph, wrt=[n.id for n in graph.placeholders if n.role == "param"], backend=backend)
    scratch = [v for v in compiled.forward.current.arrays if v.endswith(":im2col")]
    assert len(scratch) == 2, "both convolutions run over planned im2col columns"
    for _ in range(2):
        for p in ordered:
            p.grad = None
        (loss,) = compiled(x, y, *ordered)
        loss.backward()
        got = [p.grad.array.copy() for p in ordered]
        for p in ordered:
            p.grad = None
        expected = wrapped(x, y)
        expected.backward()
        np.testing.assert_allclose(loss.array, expected.array, rtol=1e-5)
        for g, p in zip(got, ordered):
            np.testing.assert_allclose(g, p.grad.array, rtol=1e-4, atol=1e-5)
