"""A leaf changed in place after its graph was recorded (opt.step()) carries `value_after`, its
value at the run's end, beside `value` (when the graph was recorded): issue 17, item 9."""
import numpy as np

STEP = """import torch
torch.manual_seed(0)
w = torch.nn.Parameter(torch.randn(3))
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
opt = torch.optim.SGD([w], lr=0.1)
loss = (w * x).sum()
loss.backward()
opt.step()
"""


def leaf(record, name):
    return next(n for n in record["graphs"][0]["forward"]["nodes"] if n.get("name") == name)


def test_a_stepped_weight_has_its_value_after_the_step(run):
    record = run(STEP)
    w = leaf(record, "w")
    before, grad, after = (np.array(w[k]["data"], dtype=np.float32) for k in ("value", "grad", "value_after"))
    np.testing.assert_array_equal(grad, [1.0, 2.0, 3.0])
    np.testing.assert_allclose(after, before - np.float32(0.1) * grad, rtol=1e-6)
    assert "value_after" not in leaf(record, "x")          # not stepped: only its recorded value


def test_a_program_that_never_steps_has_no_value_after(run):
    record = run(STEP.replace("opt.step()\n", ""))
    assert all("value_after" not in n for n in record["graphs"][0]["forward"]["nodes"])


def test_an_in_place_change_of_the_program_counts_too(run):
    record = run(STEP.replace("opt.step()\n", "with torch.no_grad():\n    w.mul_(0)\n"))
    assert leaf(record, "w")["value_after"]["data"] == [0.0, 0.0, 0.0]
