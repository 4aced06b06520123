"""A recorded backward lets a leaf's .grad keep the gradient the walk delivered (no copy, as
without a recorder: GPT-2 small's gradients existed twice), and what the record shows of a step
stays what the walk sent even when the program then changes .grad in place (issue 16)."""
import numpy as np

import engine
from engine import hooks

W = [1.0, -2.0, 0.5]
PROGRAM = """import torch
w = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
for k in range(1, 6):
    w.grad = None
    loss = (w * w * k).sum()
    loss.backward()
    w.grad.mul_(0.5)          # in place after the walk, as clip_grad_norm_ scales .grad
print(w.grad.tolist())
"""


def test_leaf_grad_owns_the_gradient_an_observer_was_given():
    seen = []
    w = engine.randn(1000, 50, requires_grad=True)
    with hooks.subscribed(hooks.BACKWARD_STEP, lambda node, grad, in_grads: seen.append((node, grad, in_grads))):
        (w * 3.0).sum().backward()
    sent = [g for _, _, in_grads in seen for g in in_grads if g is not None]
    assert any(g is w.grad.array for g in sent)            # the same array, not a copy of it
    np.testing.assert_array_equal(w.grad.array, np.full((1000, 50), 3.0, np.float32))


def accumulate_steps(graph):
    return [s for s in graph["steps"] if s["op"] == "AccumulateGrad"]


def test_a_step_shows_what_the_walk_sent_though_grad_was_changed_in_place(run):
    expected = [(np.float32(k) * np.array(W, np.float32)) * 2 for k in range(1, 6)]
    for max_graphs in (9, 2):          # every call written at once; the last one written at the end
        rec = run(PROGRAM, max_graphs=max_graphs)
        assert rec["ok"], rec["error"]
        graphs = rec["graphs"]
        calls = list(range(5)) if max_graphs == 9 else [0, 1, 4]
        for graph, k in zip(graphs, calls):
            (step,) = accumulate_steps(graph)
            assert step["grad_in"][0]["data"] == expected[k].tolist(), (max_graphs, k)
            w = next(n for n in graph["forward"]["nodes"] if n["label"] == "w")
            assert w["grad"]["data"] == expected[k].tolist(), (max_graphs, k)
        # the trajectory's iterations whose steps it keeps are written at the run's end too
        kept = graphs[0]["trajectory"]["steps"]
        assert kept, "the loop's later iterations keep their steps"
        for it in kept:
            (step,) = [s for s in it["steps"] if s["op"] == "AccumulateGrad"]
            assert step["grad_in"][0]["data"] == expected[it["iteration"]].tolist(), it["iteration"]
