"""A backward call past max_graphs is written at the run's end, in case it is the last: what its
graph shows of a parameter and its gradient is still what they were at that call, however the
program changed them in place after it (an optimizer's step, `.data`, a no_grad update, a numpy
view, a gradient zeroed or scaled in place), and the trajectory's iterations show theirs."""
import numpy as np
import pytest

LOOP = """import torch
w = torch.nn.Parameter(torch.ones(3))
opt = torch.optim.SGD([w], lr=0.5)
for step in range(6):
    opt.zero_grad(set_to_none={to_none})
    loss = (w * w).sum() / 2
    loss.backward()
    {change}
    w.grad.mul_(100.0)
"""

CHANGES = {          # each halves w in place (its gradient is w)
    "optimizer step": "opt.step()",
    ".data": "w.data.add_(-0.5 * w.grad)",
    "no_grad": "with torch.no_grad():\n        w -= 0.5 * w.grad",
    "numpy view": "w.detach().numpy()[:] *= 0.5",
}


@pytest.mark.parametrize("to_none", [True, False], ids=["grad set to None", "grad zeroed in place"])
@pytest.mark.parametrize("change", CHANGES.values(), ids=CHANGES.keys())
def test_the_last_call_shows_its_values_though_the_program_changed_them_after(run, change, to_none):
    record = run(LOOP.format(change=change, to_none=to_none), max_graphs=2)
    assert record["error"] is None, record["error"]
    last = record["graphs"][-1]
    assert last["title"].startswith("loss.backward() #6 (last of 6")
    w = next(n for n in last["forward"]["nodes"] if n["label"] == "w")
    at_call = np.float32(0.5) ** 5                  # five halvings before the sixth call
    np.testing.assert_array_equal(w["value"]["data"], [at_call] * 3)
    np.testing.assert_array_equal(w["grad"]["data"], [at_call] * 3)          # (not the x100 after it)
    # value_after follows the version counter, as PyTorch's: `.data` and numpy writes do not move it
    if change in (CHANGES["optimizer step"], CHANGES["no_grad"]):
        np.testing.assert_array_equal(w["value_after"]["data"], [at_call / 2] * 3)
    accumulate = next(s for s in last["steps"] if s["op"] == "AccumulateGrad")
    np.testing.assert_array_equal(accumulate["grad_in"][0]["data"], [at_call] * 3)
    trajectory = record["graphs"][0]["trajectory"]
    values = next(t for t in trajectory["tensors"] if t["of"] == "value")["at"]
    grads = next(t for t in trajectory["tensors"] if t["of"] == "grad")["at"]
    for k, value, grad in zip(trajectory["iterations"], values, grads):
        np.testing.assert_array_equal(value["data"], [np.float32(0.5) ** k] * 3)
        np.testing.assert_array_equal(grad["data"], [np.float32(0.5) ** k] * 3)


RENAMED = """import torch
w = torch.ones(3, requires_grad=True)
def step():
    hidden = w * 2.0
    loss = hidden.tanh().sum()
    loss.backward()
for i in range(5):
    step()
    scale = torch.ones(3)
    hidden = scale + 1.0
loss = None
"""


def test_the_last_call_names_its_tensors_as_its_frames_did(run):
    """Names are matched at the run's end (calls past max_graphs are thrown away at the next), from
    the variables read at the call: the program rebinding or dropping them after changes nothing."""
    last = run(RENAMED, max_graphs=2)["graphs"][-1]
    assert last["title"].startswith("loss.backward() #5 (last of 5")
    names = {n["op"]: n["name"] for n in last["forward"]["nodes"]}
    assert names["mul"] == "hidden" and names["sum"] == "loss" and names["input"] == "w"
