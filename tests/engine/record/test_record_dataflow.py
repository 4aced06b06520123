"""A program that computes with tensors, none of which requires grad, draws its data flow
(engine/record/dataflow.py): the ops that made the tensors it kept, its last model output and its
last value read — with PyTorch's semantics shown as they are (no grad_fn, no backward) — bounded."""
from engine import hooks
from engine.record import dataflow
from engine.runner import run_user_code

POLYNOMIAL = """import math, torch
x = torch.linspace(-math.pi, math.pi, 50)
y = torch.sin(x)
a, b = torch.randn(()), torch.randn(())
for t in range(3):
    y_pred = a + b * x
    loss = (y_pred - y).pow(2).sum().item()
    grad_y_pred = 2.0 * (y_pred - y)
    grad_a = grad_y_pred.sum()
    grad_b = (grad_y_pred * x).sum()
    a -= 1e-3 * grad_a
    b -= 1e-3 * grad_b
print(round(a.item(), 3) == round(a.item(), 3))
"""


def _ops(graph):
    return [n["op"] for n in graph["forward"]["nodes"] if n["kind"] in ("op", "output")]


def test_hand_written_gradients_draw_the_data_flow_of_the_kept_tensors():
    record = run_user_code(POLYNOMIAL)
    assert record["ok"], record["error"]
    (graph,) = record["graphs"]
    assert graph["title"] == "grad_b, grad_a (data flow only: no gradient recorded)"
    assert graph["backward"] is None and graph["steps"] == [] and "no grad_fn" in graph["warnings"][0]
    nodes = {n["id"]: n for n in graph["forward"]["nodes"]}
    assert all(n.get("grad_fn") is None and n["grad"] is None for n in nodes.values())
    # the last iteration's ops, from a, b, x and y (sin's result) to both gradients
    assert sorted(_ops(graph)) == sorted(["sin", "mul", "add", "sub", "mul", "sum", "mul", "sum"])
    outputs = [n for n in nodes.values() if n["kind"] == "output"]
    assert sorted(n["name"] for n in outputs) == ["grad_a", "grad_b"]
    assert {n["label"] for n in nodes.values() if n["kind"] == "const"} >= {"a", "b", "x", "2.0"}
    sin = next(n for n in nodes.values() if n["op"] == "sin")
    assert sin["name"] == "y" and sin["line"] == 3 and sin["value"]["shape"] == [50]
    for e in graph["forward"]["edges"]:
        assert e["src"] in nodes and e["dst"] in nodes


def test_a_module_output_only_printed_is_drawn():
    record = run_user_code("import torch\nfrom torch import nn\n"
                           "X = torch.arange(16, dtype=torch.float32).reshape(1, 1, 4, 4)\n"
                           "pool = nn.MaxPool2d(3, padding=1, stride=2)\n"
                           "print(pool(X + 1).shape)\n")
    (graph,) = record["graphs"]
    assert graph["title"].startswith("pool(…), X (data flow only")
    assert _ops(graph) == ["reshape", "add", "max_pool2d"]


def test_the_drawing_and_the_trail_are_bounded():
    record = run_user_code("import torch\nx = torch.ones(3)\nfor _ in range(6000):\n    x = x * 1.0001\n"
                           "print(x.sum().item() > 3)\n")
    (graph,) = record["graphs"]
    assert len(_ops(graph)) == dataflow.MAX_DRAWN
    assert f"the {dataflow.MAX_DRAWN} ops nearest them are drawn" in graph["warnings"][0]



def test_the_trail_forgets_its_oldest_ops_past_its_bounds(monkeypatch):
    from engine.creation import ones
    from engine.tensor import apply
    trail = dataflow.Trail()
    with hooks.subscribed(hooks.OP_APPLIED, trail.observe):
        x = ones(4)
        for _ in range(dataflow.MAX_OPS + 10):
            x = apply("mul", x, x)
        assert len(trail.order) == len(trail.by_out) == dataflow.MAX_OPS and trail.made(x) is not None
        monkeypatch.setattr(dataflow, "MAX_BYTES", 1000)
        x = apply("mul", x, x)
        assert trail.nbytes <= 1000 and len(trail.order) == 1000 // 16      # float32[4]: 16 bytes each
        big = apply("add", ones(500), 1.0)           # 2000 bytes: more than the budget, kept alone
    assert trail.made(big) is not None and trail.made(x) is None and len(trail.order) == len(trail.by_out) == 1


def test_a_backward_stops_the_trail_and_its_graph_is_drawn_as_before():
    record = run_user_code("import torch\nw = torch.ones(2, requires_grad=True)\nc = torch.ones(2) * 3\n"
                           "(w * c).sum().backward()\nd = c + 1\n")
    assert [g["title"] for g in record["graphs"]] == ["tensor.backward() #1"]
    assert record["graphs"][0]["backward"]["nodes"]
    assert not hooks.OP_APPLIED          # nothing is left listening after the run


def test_a_program_without_tensor_ops_draws_nothing():
    record = run_user_code("import torch\nx = torch.zeros(3)\nx[0] = 1\nprint(x)\n")
    assert record["ok"] and record["graphs"] == []


def test_following_gives_up_on_a_long_program_without_gradients(monkeypatch):
    monkeypatch.setattr(dataflow, "MAX_FOLLOWED", 500)
    record = run_user_code("import torch\nx = torch.ones(3)\nfor _ in range(600):\n    x = x * 1.0001\n")
    assert record["ok"] and record["graphs"] == []
    assert any("not followed past its first 500 operations" in w for w in record["warnings"])
    assert not hooks.OP_APPLIED
