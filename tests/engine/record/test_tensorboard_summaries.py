"""torch.utils.tensorboard.SummaryWriter in a run: scalars and histograms kept in the run record's
`summaries` (bounded, strict JSON), the graph traced, nothing written to disk; and the schema the
parent checks that field against (app/sandbox/record_schema.py) passes what the engine writes and
refuses forged shapes."""
import json
import os

import numpy as np
import pytest

from app.sandbox import record_schema
from engine.record import summaries as limits
from engine.runner import run_user_code

LOOP = '''
import torch, torch.nn as nn
from torch.utils.tensorboard import SummaryWriter
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(16, 3), torch.randn(16, 1)
with SummaryWriter("runs/exp1") as writer:
    writer.add_graph(model, x)
    for step in range(STEPS):
        loss = ((model(x) - y) ** 2).mean()
        opt.zero_grad(); loss.backward(); opt.step()
        writer.add_scalar("loss/train", loss.item(), step)
        writer.add_scalars("lr", {"a": 0.1, "b": torch.tensor(0.2)}, global_step=torch.tensor(step))
        if step % 10 == 0:
            writer.add_histogram("fc1.weight", model[0].weight, step)
    writer.add_scalar("nan", float("nan"))
    writer.flush()
print(writer.closed, round(loss.item(), 6))
'''


def _run(tmp_path, steps: int) -> dict:
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        return run_user_code(LOOP.replace("STEPS", str(steps)), {})
    finally:
        os.chdir(cwd)


def test_scalars_histograms_and_graph_are_kept_not_written(tmp_path):
    record = _run(tmp_path, 30)
    assert record["error"] is None, record["error"]
    assert os.listdir(tmp_path) == []                      # no runs/ folder, no event file
    assert record["stdout"].startswith("True ")
    scalars = {s["tag"]: s for s in record["summaries"]["scalars"]}
    assert list(scalars) == ["loss/train", "lr/a", "lr/b", "nan"]
    loss = scalars["loss/train"]["points"]
    assert [p[0] for p in loss] == list(range(30)) and loss[-1][1] == pytest.approx(float(record["stdout"].split()[1]))
    assert scalars["lr/b"]["points"][:2] == [[0, pytest.approx(0.2)], [1, pytest.approx(0.2)]]
    assert scalars["nan"]["points"] == [[0, "nan"]]
    (hist,) = record["summaries"]["histograms"]
    assert hist["tag"] == "fc1.weight" and [s["step"] for s in hist["snapshots"]] == [0, 10, 20]
    snap = hist["snapshots"][0]
    assert snap["count"] == 12 and sum(snap["counts"]) == 12 and len(snap["edges"]) == len(snap["counts"]) + 1
    assert snap["edges"][0] == snap["min"] and snap["edges"][-1] == snap["max"]
    assert any(g.get("capture") == "trace" for g in record["graphs"])     # add_graph traced the model


def test_a_long_loop_is_thinned_over_the_whole_run(tmp_path):
    record = _run(tmp_path, 1300)
    loss = next(s for s in record["summaries"]["scalars"] if s["tag"] == "loss/train")
    assert loss["logged"] == 1300 and len(loss["points"]) <= limits.MAX_POINTS
    steps = [p[0] for p in loss["points"]]
    assert steps[0] == 0 and steps[-1] >= 1300 - 4 and steps == sorted(steps)
    hist = record["summaries"]["histograms"][0]
    assert len(hist["snapshots"]) <= limits.MAX_SNAPSHOTS and hist["logged"] == 130
    checked = record_schema.validate(record_schema.parse(json.dumps(record).encode()), LOOP.count("\n"), 200_000)
    assert checked["summaries"] == record["summaries"]


def test_too_many_tags_are_left_out_with_a_warning():
    record = run_user_code("from torch.utils.tensorboard import SummaryWriter\nw = SummaryWriter()\n"
                           "for i in range(40):\n    w.add_scalar(f't{i}', i)\nw.close()\n", {})
    assert len(record["summaries"]["scalars"]) == limits.MAX_SERIES
    assert any("only the first 32 scalar tags" in w for w in record["warnings"])


def test_a_run_without_a_writer_has_no_summaries():
    assert "summaries" not in run_user_code("print(1)", {})


@pytest.mark.parametrize("call, message", [
    ("w.add_scalar('x', torch.ones(3))", "single number"),
    ("w.add_histogram('h', torch.ones(0))", "no element"),
    ("w.add_image('i', torch.ones(3, 4, 4))", "add_image"),
    ("w.add_text('note', 'hello', 0)", "SummaryWriter.add_text is not supported by Dagscope (its Charts tab plots "
                                       "scalars and histograms). It is not planned yet. SummaryWriter has: add_graph, "
                                       "add_histogram, add_scalar, add_scalars, close, flush, get_logdir."),
    ("w.add_hparams({'lr': 0.1}, {'loss': 0.5})", "SummaryWriter.add_hparams is not supported by Dagscope"),
])
def test_what_is_not_kept_says_so(call, message):
    record = run_user_code(f"import torch\nfrom torch.utils.tensorboard import SummaryWriter\nw = SummaryWriter()\n{call}\n", {})
    assert record["error"] is not None and message in record["error"]["message"], record["error"]
    if "not supported" in message:      # a method the writer lacks is named as unsupported, not a bare AttributeError
        assert record["error"]["kind"] == "unsupported", record["error"]


GOOD = {"scalars": [{"tag": "loss", "points": [[0, 1.5], [1, "nan"]], "logged": 2}],
        "histograms": [{"tag": "w", "logged": 1, "snapshots": [
            {"step": 0, "min": -1.0, "max": 1.0, "count": 3, "edges": [-1.0, 0.0, 1.0], "counts": [1, 2]}]}]}


def _forged(path: str, value):
    forged = json.loads(json.dumps(GOOD))
    target = forged
    *parents, last = path.split(".")
    for key in parents:
        target = target[int(key)] if key.isdigit() else target[key]
    target[int(last) if last.isdigit() else last] = value
    return forged


@pytest.mark.parametrize("forged", [
    _forged("scalars.0.points", [[0, "Infinity"]]), _forged("scalars.0.points", [[0.5, 1.0]]),
    _forged("scalars.0.points", [[0, 1.0]] * 3), _forged("scalars.0.tag", "x" * 201),
    _forged("scalars.0.logged", -1), _forged("histograms.0.snapshots.0.counts", [5, 5]),
    _forged("histograms.0.snapshots.0.edges", [1.0, 0.0, -1.0]), _forged("histograms.0.snapshots.0.min", 2.0),
    _forged("scalars", [{"tag": f"t{i}", "points": [], "logged": 0} for i in range(33)]),
    _forged("scalars", GOOD["scalars"] * 2), _forged("extra", 1), [1, 2], "summaries",
], ids=lambda f: json.dumps(f)[:60])
def test_forged_summaries_are_left_out_with_a_note(forged):
    checked = record_schema.validate({"summaries": forged}, 1, 100)
    assert "summaries" not in checked
    assert any("malformed summaries" in w for w in checked["warnings"])
    assert record_schema.validate({"summaries": GOOD}, 1, 100)["summaries"] == GOOD


def test_the_writer_prints_as_pytorchs_class():
    """PyTorch 2.13 prints <class 'torch.utils.tensorboard.writer.SummaryWriter'> (with tensorboard
    installed; make test does not install it, so the torch sweep cannot ask real PyTorch)."""
    record = run_user_code("from torch.utils.tensorboard import SummaryWriter\nprint(SummaryWriter)\n")
    assert record["stdout"] == "<class 'torch.utils.tensorboard.writer.SummaryWriter'>\n"
