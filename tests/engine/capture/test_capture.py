"""Capture: trace, script, function and compile, on programs with and without data-dependent
control flow, pasted through the runner as a user would (the `run` fixture)."""
import numpy as np
import pytest

import engine
from engine.capture.ast_compiler import ScriptError
from engine.ir import verify

SEED_SCRIPT = """import torch

# 用 Scripting 方式捕获带控制流的模型
@torch.jit.script
def my_model(x, use_bias: bool):
    y = x * 2
    if use_bias:
        y = y + 1
    return y

# 导出为 TorchScript
traced_model = torch.jit.script(my_model)
traced_model.save("model.pt")
"""


def static_graphs(record, capture=None):
    return [g for g in record["graphs"] if g["kind"] == "static" and (capture is None or g["capture"] == capture)]


def test_seed_script_snippet_runs_pasted_and_saves_ir(run, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    record = run(SEED_SCRIPT)
    assert record["ok"], record["error"]
    text = (tmp_path / "model.pt").read_text()
    assert text.startswith("graph my_model(") and "use_bias" in text and "cond(" in text
    (graph,) = static_graphs(record, "script")
    assert [p["name"] for p in graph["passes"]] == ["constant_folding", "algebraic_simplification", "cse",
                                                   "dce", "fusion", "memory_planning"]
    kinds = {n["kind"] for n in graph["forward"]["nodes"]}
    assert {"input", "op", "control", "output"} <= kinds
    mul = next(n for n in graph["forward"]["nodes"] if n["op"] == "mul")
    assert mul["line"] == 6


def test_seed_script_calls_take_both_branches(run):
    record = run(SEED_SCRIPT + "print(my_model(torch.ones(2), True))\nprint(traced_model(torch.ones(2), False))\n")
    assert record["ok"], record["error"]
    assert record["stdout"] == "tensor([3., 3.])\ntensor([2., 2.])\n"


TRACE_PITFALL = """import torch

def f(x):
    y = x * 2
    if y.sum() > 0:
        return y + 1
    return y - 1

traced = torch.jit.trace(f, torch.ones(3))
x = -torch.ones(3)
print(traced(x))
print(f(x))
scripted = torch.jit.script(f)
print(scripted(x))
"""


def test_trace_pitfall_freezes_the_branch_and_warns_with_the_line(run):
    record = run(TRACE_PITFALL)
    assert record["ok"], record["error"]
    lines = record["stdout"].splitlines()
    assert record["stderr"].startswith("<dagscope>:5: TracerWarning: Converting a tensor to a Python boolean might "
                                       "cause the trace to be incorrect.")
    assert lines[-3:] == ["tensor([-1., -1., -1.])", "tensor([-3., -3., -3.])", "tensor([-3., -3., -3.])"]
    (traced,) = static_graphs(record, "trace")
    assert any("line 5" in w for w in traced["warnings"])
    assert traced["frozen"][0]["line"] == 5 and traced["frozen"][0]["value"] is True
    assert not any(n["kind"] == "control" for n in traced["forward"]["nodes"])
    assert any("TracerWarning at line 5" in w for w in record["warnings"])
    scripted = static_graphs(record, "script")
    assert any(n["kind"] == "control" for n in scripted[-1]["forward"]["nodes"])


def test_trace_without_control_flow_matches_eager_and_its_gradients():
    x = engine.randn(4, 3)
    w = engine.randn(3, 2, requires_grad=True)

    def f(x, w):
        return (x @ w).tanh().sum()
    traced = engine.trace(f, (x, w))
    verify(traced.graph)
    out = traced(x, w)
    out.backward()
    g_traced = w.grad.array.copy()
    w.grad = None
    f(x, w).backward()
    np.testing.assert_allclose(out.array, f(x, w).array, rtol=1e-6)
    np.testing.assert_allclose(g_traced, w.grad.array, rtol=1e-6)


def test_trace_of_a_module_has_named_params():
    from engine import nn
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    traced = engine.trace(model, engine.randn(2, 3))
    names = [n.out.name for n in traced.graph.placeholders if n.role == "param"]
    assert names == ["0.weight", "0.bias", "2.weight", "2.bias"]
    x = engine.randn(2, 3)
    np.testing.assert_allclose(traced(x).array, model(x).array, rtol=1e-6)


SCRIPT_PROGRAMS = """import torch

def helper(x):
    return x * 3

@torch.jit.script
def loops(x, n: int):
    acc = x
    for i in range(n):
        acc = acc + helper(x)
    while acc.sum() < 100:
        acc = acc * 2
    y = acc if acc.mean() > 50 else -acc
    if y.max() > 1000:
        return y / 10
    return y

print(loops(torch.ones(2), 2))
print(loops(torch.ones(2) * 200, 0))
"""


def test_script_loops_ternary_early_return_and_calls(run):
    record = run(SCRIPT_PROGRAMS)
    assert record["ok"], record["error"]
    # eager: ones*(1+3+3)=7 -> 14, 28, 56 (sum 112 >= 100) -> mean 56 > 50 -> 56 ; 200 -> 200
    assert record["stdout"] == "tensor([56., 56.])\ntensor([200., 200.])\n"
    ir = static_graphs(record, "script")[-1]["ir"]
    assert "while_loop(" in ir and "cond(" in ir


def test_script_module_with_submodules_and_data_dependent_branch(run):
    code = """import torch
import torch.nn as nn

class Gate(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)
    def forward(self, x):
        h = self.fc(x)
        if h.sum() > 0:
            h = torch.relu(h)
        else:
            h = -h
        return h

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate = Gate()
        self.out = nn.Linear(3, 1)
    def forward(self, x):
        return self.out(self.gate(x))

torch.manual_seed(0)
net = Net()
s = torch.jit.script(net)
for sign in (1.0, -1.0):
    x = torch.ones(2, 3) * sign
    print(torch.allclose(s(x), net(x)))
print(s.code.count("cond("))
"""
    record = run(code)
    assert record["ok"], record["error"]
    assert record["stdout"] == "True\nTrue\n1\n"
    graph = static_graphs(record, "script")[-1]
    params = [n["label"] for n in graph["forward"]["nodes"] if n["kind"] == "param"]
    assert params == ["gate.fc.weight", "gate.fc.bias", "out.weight", "out.bias"]
    assert any(n["module"] == "gate" for n in graph["forward"]["nodes"] if n["kind"] == "control")


def test_unsupported_construct_fails_with_its_line(run):
    code = """import torch

@torch.jit.script
def f(x):
    try:
        return x
    except Exception:
        return x
"""
    record = run(code)
    assert not record["ok"]
    assert record["error"]["kind"] == "unsupported"
    assert "line 5" in record["error"]["message"] and "Try" in record["error"]["message"]


def test_scripting_a_scripted_function_returns_it_and_branches_must_agree():
    def f(x):
        if x.sum() > 0:
            y = x.sum()
        else:
            y = x
        return y
    with pytest.raises(ScriptError, match="in the then branch"):
        engine.script(f)(engine.ones(3))


FUNCTION_PROGRAM = """import dagscope as ds
from dagscope.capture import function
import torch

@function
def f(x, scale):
    print("tracing with", x)
    y = x * scale
    if y.sum() > 0:
        y = y + 1
    return y

print(f(torch.ones(2), 2))
print(f(-torch.ones(2), 2))
print(f(torch.ones(3), 2))
print(f(torch.ones(3), 3))
print(f.experimental_get_tracing_count())
"""


def test_function_traces_per_signature_and_converts_control_flow(run):
    record = run(FUNCTION_PROGRAM)
    assert record["ok"], record["error"]
    out = record["stdout"].splitlines()
    assert out[0] == 'tracing with Tensor("x", shape=(2,), dtype=float32)'
    assert out[1:3] == ["tensor([3., 3.])", "tensor([-2., -2.])"]     # one trace, both branches
    assert out[-1] == "3"
    graphs = static_graphs(record, "function")
    assert len(graphs) == 3
    assert graphs[1]["retrace"] == "tensor 'x' size mismatch at index 0. expected 2, actual 3"
    assert graphs[2]["retrace"] == "scale == 2"
    assert any("cond(" in g["ir"] for g in graphs)


def test_function_without_control_flow_matches_eager():
    def f(a, b):
        return (a * b + 1).tanh()
    gf = engine.capture.function(f)
    a, b = engine.randn(3), engine.randn(3)
    np.testing.assert_allclose(gf(a, b).array, f(a, b).array, rtol=1e-6)
    assert gf.experimental_get_tracing_count() == 1


COMPILE_TRAINING = """import torch
import torch.nn as nn

def make():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))

def train(model, steps=4):
    torch.manual_seed(1)
    x, y = torch.randn(16, 4), torch.randn(16, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, [p.detach().clone() for p in model.parameters()]

eager_losses, eager_params = train(make())
compiled = torch.compile(make())
compiled_losses, compiled_params = train(compiled)
print(all(abs(a - b) < 1e-5 for a, b in zip(eager_losses, compiled_losses)))
print(all(torch.allclose(a, b, atol=1e-5) for a, b in zip(eager_params, compiled_params)))
"""


def test_compiled_module_trains_like_eager(run):
    record = run(COMPILE_TRAINING)
    assert record["ok"], record["error"]
    assert record["stdout"] == "True\nTrue\n"
    (graph,) = static_graphs(record, "compile")
    assert graph["backward"] is not None
    assert len(graph["passes"]) == 6


def test_compile_with_data_dependent_branch_and_interpreter_fallback(monkeypatch):
    import importlib
    compile_module = importlib.import_module("engine.codegen.compiled_function")
    from engine.codegen.training import InterpretedAutograd
    monkeypatch.setattr(compile_module, "make_runner", lambda g, wrt, keep_steps=False: (InterpretedAutograd(g, wrt), None))

    def f(x, w):
        y = x * w
        if y.sum() > 0:
            return y.tanh().sum()
        return (y * y).sum()
    cf = engine.compile(f)
    for sign in (1.0, -1.0):
        x = engine.ones(3) * sign
        w = engine.tensor([0.5, 1.0, 2.0], requires_grad=True)
        out = cf(x, w)
        out.backward()
        g_compiled = w.grad.array.copy()
        w.grad = None
        ref = f(x, w)
        ref.backward()
        np.testing.assert_allclose(out.array, ref.array, rtol=1e-6)
        np.testing.assert_allclose(g_compiled, w.grad.array, rtol=1e-6)


def test_compile_graph_break_runs_eagerly(run):
    code = """import torch

@torch.compile
def f(x):
    print("side effect")
    return x + 1

print(f(torch.ones(2)))
"""
    record = run(code)
    assert record["ok"], record["error"]
    assert record["stdout"] == "side effect\ntensor([2., 2.])\n"
    assert any("graph break" in w for w in record["warnings"])


def test_compile_of_a_user_lambda_and_bounded_recording(run):
    code = """import torch

f = torch.compile(lambda x: (x * 2).relu().sum())
print(f(torch.tensor([1.0, -2.0, 3.0])))
for i in range(20):
    t = torch.jit.trace(lambda x: x + i, torch.ones(1))
"""
    record = run(code)
    assert record["ok"], record["error"]
    assert record["stdout"] == "tensor(8.)\n"
    statics = static_graphs(record)
    assert statics[0]["capture"] == "compile" and len(statics) == 12
    assert any("only the first 12 are recorded" in w for w in record["warnings"])


def test_dropout_in_training_mode_is_not_frozen_by_compile(run):
    code = """import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.5))
compiled = torch.compile(model)
x = torch.ones(4, 8)
a, b = compiled(x), compiled(x)
print(torch.equal(a, b))
model.eval()
print(torch.allclose(compiled(x), model(x)))
traced = torch.jit.trace(nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.5)), x)
"""
    record = run(code)
    assert record["ok"], record["error"]
    assert record["stdout"] == "False\nTrue\n"          # two training calls draw two masks
    assert any("graph break" in w and "dropout" in w for w in record["warnings"])
    assert any("random mask" in w for w in static_graphs(record, "trace")[0]["warnings"])


def test_batchnorm_running_stats_are_never_corrupted_by_capture(run):
    code = """import torch
import torch.nn as nn

torch.manual_seed(0)
bn = nn.BatchNorm1d(3)
ref = nn.BatchNorm1d(3)
compiled = torch.compile(bn)
x = torch.randn(8, 3)
print(torch.allclose(compiled(x), ref(x)))
print(torch.allclose(bn.running_mean, ref.running_mean), torch.allclose(bn.running_var, ref.running_var))
"""
    record = run(code)
    assert record["ok"], record["error"]
    assert record["stdout"] == "True\nTrue True\n"


def test_inplace_ops_are_captured_or_refused_never_dropped(run):
    code = """import torch

def f(x):
    y = x * 2
    y.add_(1)
    acc = torch.zeros(3)
    acc += y
    return acc * 3

x = torch.tensor([1.0, 2.0, 3.0])
print(torch.jit.script(f)(x), torch.compile(f)(x), f(x))
t = torch.jit.trace(f, x)
"""
    record = run(code)
    assert record["stdout"].splitlines()[0] == "tensor([ 9., 15., 21.]) tensor([ 9., 15., 21.]) tensor([ 9., 15., 21.])"
    assert not record["ok"] and record["error"]["kind"] == "unsupported"    # the trace refuses y.add_(1)
    assert "in-place" in record["error"]["message"] and "line 5" in record["error"]["message"]
    x = engine.tensor([1.0, 2.0], requires_grad=True)

    def g(x):
        y = x * 2
        y.add_(1)
        return y.sum()
    traced = engine.trace(g, x)
    assert traced(engine.tensor([0.0, 0.0])).item() == 2.0     # with grad, in-place ops are recorded
    assert x.array.flags.writeable


def test_parameters_read_from_outside_are_inputs_by_reference(run):
    code = """import torch

w = torch.tensor([1.0, 2.0], requires_grad=True)

def f(x):
    return (x * w).sum()

traced = torch.jit.trace(f, torch.ones(2))
scripted = torch.jit.script(f)
compiled = torch.compile(f)
x = torch.ones(2)
for step in range(2):
    loss = compiled(x)
    loss.backward()
    print(traced(x).item(), scripted(x).item(), loss.item(), w.grad.tolist())
    with torch.no_grad():
        w -= 0.5 * w.grad
    w.grad = None
"""
    record = run(code)
    assert record["ok"], record["error"]
    assert record["stdout"] == "3.0 3.0 3.0 [1.0, 1.0]\n2.0 2.0 2.0 [1.0, 1.0]\n"
    graph = static_graphs(record, "trace")[0]
    assert [n["label"] for n in graph["forward"]["nodes"] if n["kind"] == "param"] == ["captured_0"]


def test_scripted_module_follows_train_and_eval(run):
    code = """import torch
import torch.nn as nn

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4))
net.eval()
s = torch.jit.script(net)
x = torch.randn(6, 4)
print(torch.allclose(s(x), net(x)))
"""
    record = run(code)
    assert record["ok"], record["error"]
    assert record["stdout"] == "True\n"


def test_compile_with_tensor_while_loop_differentiates_the_loop():
    def f(x):
        y = x
        while y.sum() < 10:
            y = y * 2
        return y.sum()
    cf = engine.compile(f)
    x = engine.tensor([1.0, 2.0], requires_grad=True)
    out = cf(x)
    out.backward()
    assert out.item() == 12.0 and x.grad.tolist() == [4.0, 4.0]
    assert not cf.graph_breaks
    with engine.no_grad():
        assert cf(engine.tensor([1.0, 2.0])).item() == 12.0


def test_script_comprehensions_over_submodules(run):
    code = """import torch
import torch.nn as nn

class Heads(nn.Module):
    def __init__(self):
        super().__init__()
        self.heads = nn.ModuleList([nn.Linear(3, 2) for _ in range(3)])
    def forward(self, x):
        outs = [h(x) for h in self.heads if h.out_features == 2]
        return torch.cat(outs, dim=1).sum(dim=1)

torch.manual_seed(0)
m = Heads()
s = torch.jit.script(m)
x = torch.randn(4, 3)
print(torch.allclose(s(x), m(x)), s(x).shape)
"""
    record = run(code)
    assert record["ok"], record["error"]
    assert record["stdout"] == "True torch.Size([4])\n"


def test_script_python_numbers_set_in_tensor_branches_become_tensors():
    def f(x):
        if x.sum() > 0:
            scale = 2.0
        else:
            scale = -1.0
        return x * scale
    s = engine.script(f)
    for sign in (1.0, -1.0):
        x = engine.ones(2) * sign
        np.testing.assert_allclose(s(x).array, f(x).array)


def test_compile_stops_recompiling_after_a_limit():
    cf = engine.compile(lambda x: x * 2)
    for n in range(1, 12):
        assert cf(engine.ones(n)).tolist() == [2.0] * n
    assert len(cf.retraces) == 7 and any("running eagerly" in b for b in cf.graph_breaks)


def test_the_package_names_stay_the_functions_whatever_is_imported_first():
    """engine.compile and engine.capture.function are functions; no submodule of the same name can
    replace them (importing a submodule binds it on the package)."""
    import subprocess
    import sys
    code = ("import engine, engine.codegen.compiled_function, engine.capture.graph_function, engine.capture as c\n"
            "import types\nassert not isinstance(engine.compile, types.ModuleType)\n"
            "assert not isinstance(c.function, types.ModuleType)\nassert callable(engine.compile(lambda x: x))\n")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=str(__import__("pathlib").Path(__file__).parents[3]))
