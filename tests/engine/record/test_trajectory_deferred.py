"""The trajectory's summaries are made at the run's end, for the iterations kept then, from arrays
each iteration held (engine/record/trajectory.py): the same numbers as summarising each iteration
as it ran, a constant leaf that changes in place (a running statistic) summarised as it was at each
iteration, and a graph whose held arrays would not fit HELD_BYTES summarised as it runs."""
import numpy as np
import pytest

from engine.record import trajectory
from engine.record.values import ValueStore
from engine.runner import run_user_code

# 40 iterations: past MAX_ITERATIONS / 2 when the limit is lowered below, so some held ones are dropped
LOOP = """import torch
torch.manual_seed(0)
w = torch.randn(6, 4, requires_grad=True)
running = torch.zeros(4)
x = torch.randn(5, 6)
for step in range(40):
    h = x @ w
    loss = ((h + running) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w.sub_(0.05 * w.grad)
        running.mul_(0.9).add_(0.1 * h.mean(0))       # a constant leaf changed in place, as BatchNorm's
        print("running", running.tolist())
    w.grad = None
"""


def _trajectory(monkeypatch, defer: bool):
    monkeypatch.setattr(trajectory, "MAX_ITERATIONS", 16)
    monkeypatch.setattr(trajectory, "HELD_BYTES", trajectory.HELD_BYTES if defer else 0)
    rec = run_user_code(LOOP, values=ValueStore(8 << 20))
    assert rec["error"] is None, rec["error"]
    return rec, rec["graphs"][0]["trajectory"]


def test_summaries_made_at_the_end_are_those_made_as_it_ran(monkeypatch):
    held, deferred = _trajectory(monkeypatch, defer=True)
    at_once, immediate = _trajectory(monkeypatch, defer=False)
    assert deferred["iterations"] == immediate["iterations"] and len(deferred["iterations"]) < 40
    assert deferred["series"] == immediate["series"]
    assert deferred["loss"] == immediate["loss"]


def test_a_constant_changed_in_place_is_summarised_as_it_was(monkeypatch):
    rec, tr = _trajectory(monkeypatch, defer=True)
    graph = rec["graphs"][0]
    running = next(n["id"] for n in graph["forward"]["nodes"] if n["label"] == "running")
    series = next(s for s in tr["series"] if s["node"] == running and s["of"] == "value")
    printed = [np.array(eval(line.split(" ", 1)[1]), np.float32) for line in rec["stdout"].splitlines()]
    for k, number in enumerate(tr["iterations"]):
        # the value the iteration's forward read: what the previous iteration left (zeros at first)
        was = printed[number - 1] if number else np.zeros(4, np.float32)
        assert series["stats"][k][2] == pytest.approx(float(was.astype(np.float64).mean()), rel=1e-5, abs=1e-9)


def test_a_graph_too_large_to_hold_is_summarised_as_it_runs(monkeypatch):
    monkeypatch.setattr(trajectory, "HELD_BYTES", 1000)
    seen = []
    monkeypatch.setattr(trajectory._Iteration, "summarise",
                        lambda self, *a, **k: seen.append(self.number) or setattr(self, "rows", np.zeros((1, 12))))
    rec = run_user_code(LOOP, values=ValueStore(8 << 20))
    assert rec["error"] is None and seen[:3] == [0, 1, 2]      # each as it ran (held: the kept 0, 4, 8 at the end)


def test_small_tensors_written_together_have_the_digits_written_alone():
    from engine.record.values import _values
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(128).astype(np.float32), rng.standard_normal((3, 4)).astype(np.float32),
              np.array([0.1, np.nan, np.inf, -np.inf, 1e-40, 3.4e38], np.float32), np.zeros((0, 2), np.float32),
              rng.standard_normal(7).astype(np.float16), rng.standard_normal(5), np.arange(6).reshape(2, 3),
              np.array([True, False])]
    small = trajectory._SmallTensors()
    written = [small.add(a) for a in arrays]
    small.write()
    for a, t in zip(arrays, written):
        assert t["data"] == _values(a) and t["shape"] == list(a.shape) and t["stats"] is None
