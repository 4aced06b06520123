"""The first seed snippet: a dynamic graph, backward, and the recorded DAGs."""

SEED = """import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
z = y.sum()
z.backward()  # 自动求导，基于动态构建的图

print(x.grad)  # 输出 tensor([2., 2.])
"""


def test_seed_prints_pytorch_output(run):
    record = run(SEED)
    assert record["ok"], record["error"]
    assert record["stdout"] == "tensor([2., 2.])\n"


def test_seed_records_forward_and_backward_dags(run):
    graph = run(SEED)["graphs"][0]
    assert graph["kind"] == "dynamic" and graph["title"] == "z.backward() #1"
    fwd_ops = [n["op"] for n in graph["forward"]["nodes"]]
    assert sorted(fwd_ops) == ["const", "input", "mul", "sum"]
    bwd_ops = [n["op"] for n in graph["backward"]["nodes"]]
    assert bwd_ops == ["SumBackward0", "MulBackward0", "AccumulateGrad"]
    by_id = {n["id"]: n for n in graph["forward"]["nodes"]}
    for n in graph["backward"]["nodes"]:
        assert n["forward_node"] in by_id
        if n["kind"] == "grad":          # the op it differentiates, whose explanation card it shows
            assert n["forward_op"] == by_id[n["forward_node"]]["op"]
    x = next(n for n in graph["forward"]["nodes"] if n["label"] == "x")
    assert x["grad"]["data"] == [2.0, 2.0]
    mul = next(n for n in graph["forward"]["nodes"] if n["op"] == "mul")
    assert mul["line"] == 4 and mul["value"]["data"] == [2.0, 4.0]


def test_seed_steps_follow_backprop_order(run):
    steps = run(SEED)["graphs"][0]["steps"]
    assert [s["op"] for s in steps] == ["SumBackward0", "MulBackward0", "AccumulateGrad"]
    assert steps[1]["grad_in"][0]["data"] == [1.0, 1.0]
    assert steps[1]["grad_out"][0]["data"] == [2.0, 2.0]
