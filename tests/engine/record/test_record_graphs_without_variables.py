"""A graph a run built is drawn even when no variable holds it: a model applied inside an
expression (d2l's parameters chapter: `net(X).shape`) or a function whose result is only read."""
from engine.runner import run_user_code

D2L_PARAMETERS = """import torch
from torch import nn

net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
X = torch.rand(size=(2, 4))
print(net(X).shape)
print(net[2].state_dict()['bias'].shape)
"""
FUNCTION_ONLY = """import torch

def loss_of(w):
    x = torch.tensor([1.0, 2.0, 3.0])
    return ((w * x) ** 2).sum()

print(round(loss_of(torch.ones(3, requires_grad=True)).item(), 3))
"""


def test_a_model_applied_inside_an_expression_is_drawn():
    record = run_user_code(D2L_PARAMETERS)
    assert record["ok"], record["error"]
    (graph,) = record["graphs"]
    assert graph["title"] == "net(…) (forward only: backward() not called)"
    ops = [n["op"] for n in graph["forward"]["nodes"]]
    assert ops.count("linear") + ops.count("addmm") == 2 and "relu" in ops, ops
    assert {n["module"] for n in graph["forward"]["nodes"] if n.get("module")} >= {"0", "1", "2"}
    assert graph["backward"]["nodes"]


def test_a_graph_built_in_a_function_and_only_read_is_drawn():
    record = run_user_code(FUNCTION_ONLY)
    assert record["ok"] and record["stdout"] == "14.0\n", record
    (graph,) = record["graphs"]
    assert graph["title"].startswith("the tensor read by .item()")
    assert [n["op"] for n in graph["forward"]["nodes"] if n.get("kind") in ("op", "output")] == ["mul", "pow_scalar", "sum"]


def test_a_variable_or_a_backward_still_decides_what_is_drawn():
    kept = run_user_code(D2L_PARAMETERS.replace("print(net(X).shape)", "y = net(X)\nprint(net(X).shape)"))
    assert [g["title"] for g in kept["graphs"]] == ["y (forward only: backward() not called)"]
    trained = run_user_code(D2L_PARAMETERS + "net(X).sum().backward()\n")
    assert trained["graphs"] and all("forward only" not in g["title"] for g in trained["graphs"])
