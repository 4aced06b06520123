"""engine/record/backprop.py on its own: the steps of a captured graph's backward, one per forward
node differentiated in graph autodiff's order and an AccumulateGrad after an input's last gradient,
their gradients those of the graph (checked against the joint graph's and finite differences in
float64), and the bounds that leave the steps out."""
import numpy as np
import pytest

from engine.autodiff import backward_graph
from engine.ir.graph import Graph
from engine.ir.interpreter import run
from engine.record import backprop
from engine.record.backprop import StepsTooLarge, backprop_steps


def graph() -> Graph:
    """sum(tanh(x * w + b)): three vjps that make nodes, one (add) that passes its gradient on."""
    g = Graph("f")
    x = g.placeholder("x", (3,), np.float64)
    w = g.placeholder("w", (3,), np.float64, role="param")
    b = g.placeholder("b", (3,), np.float64, role="param")
    g.output(g.call("sum", g.call("tanh", g.call("add", g.call("mul", x, w), b))))
    return g


ARRAYS = [np.array([0.5, -1.0, 2.0]), np.array([0.3, 0.2, -0.4]), np.array([0.1, 0.0, -0.2])]


def numeric_grad(g: Graph, arrays: list, i: int, eps: float = 1e-6) -> np.ndarray:
    out = np.zeros_like(arrays[i])
    for j in range(arrays[i].size):
        plus = [a.copy() for a in arrays]
        minus = [a.copy() for a in arrays]
        plus[i][j] += eps
        minus[i][j] -= eps
        out[j] = (run(g, plus)[0] - run(g, minus)[0]) / (2 * eps)
    return out


def test_one_step_per_vjp_in_autodiff_order_then_each_inputs_accumulate():
    g = graph()
    bwd = backward_graph(g)
    steps = backprop_steps(g, bwd, ARRAYS)
    by_id = {n.id: n for n in g.nodes}
    ops = [s["op"] for s in steps]
    # sum, tanh, add, mul: the joint graph's order; b's gradient is complete after add, x's and w's after mul
    assert [s["forward_op"] for s in steps if s["op"] != "AccumulateGrad"] == ["sum", "tanh", "add", "mul"]
    assert ops.index("AccumulateGrad") == ops.index("AddBackward0") + 1
    assert ops[-2:] == ["AccumulateGrad", "AccumulateGrad"]
    assert [s["index"] for s in steps] == list(range(len(steps)))
    for s in steps:
        if s["op"] == "AccumulateGrad":
            assert s["node"] == "output" and by_id[s["forward_node"]].kind == "placeholder"
        else:
            assert s["nodes"] == [n for n in s["nodes"] if bwd.forward_of.get(n) == s["forward_node"]]
            assert s["node"] == (s["nodes"][-1] if s["nodes"] else None)
    add = next(s for s in steps if s["forward_op"] == "add")
    assert add["nodes"] == [] and add["node"] is None        # add's vjp only passes its gradient on


def test_each_inputs_accumulated_gradient_is_the_graphs_gradient():
    g = graph()
    steps = backprop_steps(g, backward_graph(g), ARRAYS)
    names = {n.id: n.outputs[0].name for n in g.placeholders}
    got = {names[s["forward_node"]]: np.array(s["grad_in"][0]["data"]) for s in steps if s["op"] == "AccumulateGrad"}
    assert set(got) == {"x", "w", "b"}
    for i, name in enumerate(["x", "w", "b"]):
        np.testing.assert_allclose(got[name], numeric_grad(g, ARRAYS, i), rtol=1e-6, atol=1e-8)


def test_a_step_sends_what_its_rule_makes_of_what_it_received():
    g = graph()
    steps = backprop_steps(g, backward_graph(g), ARRAYS)
    tanh = next(s for s in steps if s["forward_op"] == "tanh")
    pre = ARRAYS[0] * ARRAYS[1] + ARRAYS[2]
    received = np.array(tanh["grad_in"][0]["data"])
    np.testing.assert_allclose(received, np.ones(3))                    # from sum, seeded with ones
    np.testing.assert_allclose(tanh["grad_out"][0]["data"], received * (1 - np.tanh(pre) ** 2))
    # where each gradient goes next: sum's to tanh's node, tanh's to add (which makes no node: None),
    # mul's to the two inputs the backward graph returns
    target = {s["forward_op"]: s["targets"] for s in steps if s["op"] != "AccumulateGrad"}
    assert target == {"sum": [tanh["node"]], "tanh": [None], "add": [next(s["node"] for s in steps if s.get("forward_op") == "mul"), "output"],
                      "mul": ["output", "output"]}


def test_too_many_steps_are_not_recorded(monkeypatch):
    g = graph()
    monkeypatch.setattr(backprop, "MAX_STEPS", 3)
    assert backprop_steps(g, backward_graph(g), ARRAYS) == []


def test_steps_too_large_for_the_record_raise(monkeypatch):
    g = graph()
    monkeypatch.setattr(backprop, "MAX_STEPS_BYTES", 100)
    with pytest.raises(StepsTooLarge, match="would take"):
        backprop_steps(g, backward_graph(g), ARRAYS)
