"""Scripting scopes: a global tensor read inside a branch and again after it, and a tensor `while`
whose condition, evaluated once to tell a tensor loop from a Python one, leaves no dangling nodes."""
import numpy as np

BRANCH_THEN_AFTER = """import torch

limit = torch.tensor(1.0)

@torch.jit.script
def f(x):
    if x.sum() > 0:
        y = x + limit
    else:
        y = x
    return y * limit

print(f(torch.tensor([4.0, 1.0])).tolist(), f(torch.tensor([-4.0, 1.0])).tolist())
"""

WHILE = """import torch

limit = torch.tensor(1.0)

@torch.jit.script
def halve(x):
    y = x
    while y.max() > limit:
        y = y / 2.0
    return y, y.max() > limit

out, flag = halve(torch.tensor([4.0, 1.0]))
print(out.tolist(), bool(flag))
"""


def scripted(record):
    return [g for g in record["graphs"] if g["capture"] == "script" and "(" in g["title"]][-1]


def test_a_global_tensor_read_in_a_branch_and_after_it(run):
    rec = run(BRANCH_THEN_AFTER)
    assert rec["ok"], rec["error"]
    assert rec["stdout"] == "[5.0, 2.0] [-4.0, 1.0]\n"


def test_a_tensor_while_leaves_no_dangling_nodes_in_the_outer_graph(run):
    rec = run(WHILE)
    assert rec["ok"], rec["error"]
    assert rec["stdout"] == "[1.0, 0.25] False\n"
    g = scripted(rec)["forward"]
    read = {e["src"] for e in g["edges"]}
    dangling = [n["op"] for n in g["nodes"] if n["op"] != "output" and n["id"] not in read]
    assert dangling == []
    assert [n["op"] for n in g["nodes"]].count("max") == 1          # only the one after the loop (line 10)


def test_the_while_graph_matches_eager_on_other_inputs(run):
    rec = run(WHILE.replace("[4.0, 1.0]", "[0.5, 0.25]"))
    assert rec["ok"], rec["error"]
    assert rec["stdout"] == "[0.5, 0.25] False\n"
    np.testing.assert_allclose(scripted(rec)["calls"][0]["outputs"][0]["data"], [0.5, 0.25])
