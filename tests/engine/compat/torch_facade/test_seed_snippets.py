"""Seed 001's PyTorch snippets (line breaks restored, in tests/fixtures/seeds/) run unmodified and
print what PyTorch prints; gradients and the Adam step are checked against numpy re-derivations."""
import pathlib
import re

import numpy as np
import pytest

FIXTURES = pathlib.Path(__file__).resolve().parents[3] / "fixtures" / "seeds"
MLP_SEED = (FIXTURES / "mlp_training_step.py").read_text(encoding="utf-8")


def _exec_in_parts(code: str, split_after: str) -> tuple[dict, dict]:
    """Run `code` as pasted code does (torch = the facade), pausing after the line `split_after`
    to snapshot the model's parameters and gradients before the optimizer changes them."""
    from engine import compat
    head, _, tail = code.partition(split_after)
    ns = {"__name__": "__main__"}
    with compat.installed():
        exec(compile(head + split_after, "<seed>", "exec"), ns)
        snap = {name: (p.array.astype(np.float64), p.grad.array.astype(np.float64))
                for name, p in ns["model"].named_parameters()}
        exec(compile("\n" * (head + split_after).count("\n") + tail, "<seed>", "exec"), ns)
    return ns, snap


def _numpy_mlp(x, y, w1, b1, w2, b2):
    """Forward and backward of relu-MLP + cross-entropy, by hand, in float64. Which units the
    ReLU lets through is decided in float32, as the model runs: a pre-activation within rounding
    of 0 can be positive in float64 and not in float32, and would flip a whole gradient row."""
    h = x @ w1.T + b1
    f32 = np.float32
    on = (x.astype(f32) @ w1.astype(f32).T + b1.astype(f32)) > 0
    r = h * on
    z = r @ w2.T + b2
    zs = z - z.max(axis=1, keepdims=True)
    logp = zs - np.log(np.exp(zs).sum(axis=1, keepdims=True))
    n = len(y)
    loss = -logp[np.arange(n), y].mean()
    dz = np.exp(logp)
    dz[np.arange(n), y] -= 1
    dz /= n
    dh = (dz @ w2) * on
    grads = {"fc1.weight": dh.T @ x, "fc1.bias": dh.sum(0), "fc2.weight": dz.T @ r, "fc2.bias": dz.sum(0)}
    return loss, z, grads


def test_mlp_seed_gradients_and_adam_step_match_numpy():
    ns, snap = _exec_in_parts(MLP_SEED, "loss.backward()  # autograd 通过当前这次前向的图反传\n")
    x, y = ns["x"].array.astype(np.float64), ns["y"].array
    w = {k: v[0] for k, v in snap.items()}
    loss, _, grads = _numpy_mlp(x, y, w["fc1.weight"], w["fc1.bias"], w["fc2.weight"], w["fc2.bias"])
    assert ns["loss"].item() == pytest.approx(loss, rel=1e-5)
    for name, (_, grad) in snap.items():
        np.testing.assert_allclose(grad, grads[name], rtol=1e-4, atol=1e-6, err_msg=name)
    # Adam's first step: m_hat = g, v_hat = g^2, so each weight moves by lr * g / (|g| + eps).
    # g is the engine's own float32 gradient (checked against float64 above): where |g| is near
    # eps, its last bits decide the step, and the float64 reference gradient's would not match.
    for name, p in ns["model"].named_parameters():
        g = snap[name][1]
        np.testing.assert_allclose(p.array, w[name] - 1e-3 * g / (np.abs(g) + 1e-8), rtol=1e-5, atol=1e-6)
    new = {k: p.array.astype(np.float64) for k, p in ns["model"].named_parameters()}
    _, z_after, _ = _numpy_mlp(x, y, new["fc1.weight"], new["fc1.bias"], new["fc2.weight"], new["fc2.bias"])
    pred, frozen = ns["pred"], ns["frozen"]
    np.testing.assert_allclose(pred.array, z_after, rtol=1e-4, atol=1e-5)
    assert not pred.requires_grad and pred.grad_fn is None
    assert not frozen.requires_grad and np.shares_memory(frozen.array, ns["model"].fc1.weight.array)


def test_mlp_seed_prints_like_pytorch(run):
    record = run(MLP_SEED + (
        "print(logits.shape)\n"
        "print(loss)\n"
        "print(pred.requires_grad, pred.grad_fn, frozen.requires_grad, frozen.is_leaf)\n"
        "print(model)\n"
        "print(frozen.shape, model.fc1.bias.grad.shape)\n"))
    assert record["ok"], record["error"]
    lines = record["stdout"].split("\n")
    assert lines[0] == "torch.Size([32, 10])"
    assert re.fullmatch(r"tensor\(\d\.\d{4}, grad_fn=<NllLossBackward0>\)", lines[1])
    assert lines[2] == "False None False True"
    assert "\n".join(lines[3:7]) == ("MLP(\n  (fc1): Linear(in_features=100, out_features=128, bias=True)\n"
                                     "  (fc2): Linear(in_features=128, out_features=10, bias=True)\n)")
    assert lines[7] == "torch.Size([128, 100]) torch.Size([128])"


def test_mlp_seed_records_module_paths_and_parameter_names(run):
    record = run(MLP_SEED)
    assert record["ok"] and record["stdout"] == ""
    (graph,) = [g for g in record["graphs"] if g["kind"] == "dynamic"]
    assert graph["title"] == "loss.backward() #1"
    fwd = graph["forward"]["nodes"]
    modules = {n["op"]: n["module"] for n in fwd if n["op"] in ("relu", "nll_loss")}
    assert modules == {"relu": None, "nll_loss": None}
    addmm = [(n["module"], n["line"]) for n in fwd if n["op"] == "addmm"]
    # the innermost line of the user's code: inside MLP.forward
    assert sorted(addmm) == [("fc1", 13), ("fc2", 14)]
    params = {n["label"]: n["module"] for n in fwd if n.get("kind") == "param"}
    assert params == {"fc1.weight": "fc1", "fc1.bias": "fc1", "fc2.weight": "fc2", "fc2.bias": "fc2"}
    bwd_ops = sorted(n["op"] for n in graph["backward"]["nodes"])
    assert bwd_ops.count("AddmmBackward0") == 2 and bwd_ops.count("AccumulateGrad") == 4
    assert "NllLossBackward0" in bwd_ops and "ReluBackward0" in bwd_ops


def test_custom_square_function_seed(run):
    record = run((FIXTURES / "custom_square.py").read_text(encoding="utf-8"))
    assert record["ok"], record["error"]
    x = np.array([1.0, 2.0, 3.0])
    expected_grad = "tensor([" + ", ".join(f"{v:.0f}." for v in 2 * x) + "])"
    assert record["stdout"] == f"tensor([1., 4., 9.], grad_fn=<SquareBackward>)\n{expected_grad}\n"


def test_retain_graph_seed(run):
    from engine.autograd import SECOND_BACKWARD
    record = run((FIXTURES / "retain_graph.py").read_text(encoding="utf-8"))
    x = np.array([1.0, 2.0])
    assert record["stdout"] == "tensor([" + ", ".join(f"{v:.0f}." for v in 2 * (2 * x)) + "])\n"
    err = record["error"]
    assert (err["kind"], err["type"], err["line"]) == ("runtime_error", "RuntimeError", 10)
    assert err["message"] == SECOND_BACKWARD
