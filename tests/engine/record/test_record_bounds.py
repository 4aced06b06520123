"""Recording stays bounded: long training loops and huge graphs cost little and say what was left out."""
from engine import record
from engine.record import recorder

LOOP = """import torch
w = torch.tensor([1.0, -2.0], requires_grad=True)
for step in range(50):
    loss = (w * w).sum()
    loss.backward()
    with torch.no_grad():
        w.sub_(0.1 * w.grad)
    w.grad = None
print(round(w.sum().item(), 4))
"""


def test_a_training_loop_records_the_first_graphs_and_the_last(run):
    rec = run(LOOP, max_graphs=3)
    assert rec["ok"], rec["error"]
    titles = [g["title"] for g in rec["graphs"]]
    assert titles[:3] == ["loss.backward() #1", "loss.backward() #2", "loss.backward() #3"]
    assert titles[3].startswith("loss.backward() #50 (last of 50; 46 not recorded)")
    last_w = next(n for n in rec["graphs"][3]["forward"]["nodes"] if n["label"] == "w")
    # the value recorded is w as it was in step 50's forward pass, before that step's update
    assert abs(sum(last_w["value"]["data"]) - (-1.0 * 0.8 ** 49)) < 1e-4


# A loop whose graph changes between calls, with a constant rebound and a parameter changed in
# place after each call: what the record shows of a call must be what it was at that call.
CHANGING_LOOP = """import torch
w = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
c = torch.tensor([0.5, 1.0, 2.0])
for step in range(9):
    h = w
    for _ in range(step % 3 + 1):
        h = torch.tanh(h * c + 1.0)
    loss = (h * h).sum()
    loss.backward()
    with torch.no_grad():
        w.sub_(0.1 * w.grad)
    w.grad = None
    c = c + 1.0
"""


def test_a_call_past_max_graphs_records_what_it_would_have_at_its_call(run):
    """The last call's forward records are built at finish from what was read at the call; the
    same call recorded among the first (records built at once) gives the same graph."""
    import json
    kept_all = run(CHANGING_LOOP, max_graphs=9)["graphs"]
    lazy = run(CHANGING_LOOP, max_graphs=3)["graphs"]
    assert [g["title"] for g in lazy][3] == "loss.backward() #9 (last of 9; 5 not recorded)"
    for eager, late in ((kept_all[i], lazy[i]) for i in range(3)):
        assert json.dumps(eager) == json.dumps(late)
    eager, late = dict(kept_all[8]), dict(lazy[3])
    for key in ("title", "id"):          # "#9 (last of 9; ...)", and its place among the graphs
        eager.pop(key), late.pop(key)
    assert json.dumps(eager) == json.dumps(late)


def test_calls_that_are_not_recorded_never_get_node_records(run, monkeypatch):
    """Each backward call is snapshot (the graph is freed after), but the records of its nodes
    are made only for the calls the record keeps: the first max_graphs and the last."""
    made = []
    op_record = recorder._op_record
    monkeypatch.setattr(recorder, "_op_record", lambda *entry: made.append(entry[0]) or op_record(*entry))
    rec = run(CHANGING_LOOP, max_graphs=3)
    ops = sum(n["kind"] in ("op", "output") for g in rec["graphs"] for n in g["forward"]["nodes"])
    assert len(rec["graphs"]) == 4 and len(made) == ops


def test_a_graph_too_large_to_draw_is_counted(run, monkeypatch):
    monkeypatch.setattr(recorder, "MAX_GRAPH_NODES", 10)
    rec = run("import torch\nx = torch.ones(2, requires_grad=True)\ny = x\n"
              "for _ in range(20):\n    y = y * 1.5\ny.sum().backward()\n")
    g = rec["graphs"][0]
    assert g["too_large"] and g["forward"]["nodes"] == [] and "21 operations" in g["warnings"][0]


def test_large_tensors_are_summarized():
    import numpy as np
    t = record.tensor_json(np.arange(1000, dtype=np.float32))
    assert t["data"] is None and len(t["preview"]) == record.PREVIEW_ELEMENTS
    assert t["stats"]["max"] == 999.0
    assert record.tensor_json(np.array([np.nan, np.inf], dtype=np.float32))["data"] == ["nan", "inf"]


def test_a_graph_without_backward_is_still_shown(run):
    rec = run("import torch\nx = torch.ones(3, requires_grad=True)\ny = x * 2\nz = y.sum()\n")
    (g,) = rec["graphs"]
    assert g["title"] == "z (forward only: backward() not called)"
    assert [n["op"] for n in g["backward"]["nodes"]] == ["SumBackward0", "MulBackward0", "AccumulateGrad"]
    assert g["steps"] == []


def test_autograd_grad_is_recorded_with_the_leaf_gradients(run):
    rec = run("import torch\nx = torch.tensor([1.0, 3.0], requires_grad=True)\ny = (x * x).sum()\n"
              "(g,) = torch.autograd.grad(y, x)\nprint(g, x.grad)\n", gradcheck=True)
    assert rec["stdout"] == "tensor([2., 6.]) None\n"
    (graph,) = rec["graphs"]
    assert graph["title"] == "y: autograd.grad() #1"
    x = next(n for n in graph["forward"]["nodes"] if n["label"] == "x")
    assert x["grad"]["data"] == [2.0, 6.0] and x["gradcheck"]["ok"]


def test_large_tensors_carry_a_heatmap_of_block_means():
    import numpy as np
    a = np.arange(96 * 48, dtype=np.float32).reshape(96, 48)      # 4 x 2 blocks of 24 x 24
    grid = record.tensor_json(a)["heatmap"]
    assert len(grid) == record.HEATMAP_SIDE and len(grid[0]) == record.HEATMAP_SIDE
    # a colour needs 4 significant digits: each cell is its block's mean to that precision
    assert grid[0][0] == a[:4, :2].mean() == 72.5
    assert abs(grid[-1][-1] - a[-4:, -2:].mean()) <= 5e-4 * a[-4:, -2:].mean()
    v = record.tensor_json(np.ones(1000, dtype=np.float32))["heatmap"]
    assert len(v) == 1 and len(v[0]) == 2 * record.HEATMAP_SIDE and v[0][0] == 1.0
    small = record.tensor_json(np.ones((3, 100), dtype=np.float32))["heatmap"]
    assert len(small) == 3


def test_float32_values_are_written_short_and_read_back_exactly():
    import json

    import numpy as np
    rng = np.random.default_rng(0)
    assert record.tensor_json(np.array([0.1, 2.5, 1 / 3], np.float32))["data"] == [0.1, 2.5, 0.333333343]
    for scale in (1e-40, 1e-20, 1e-3, 1.0, 1e6, 1e25, 3e38):
        for dtype in (np.float32, np.float16):
            a = (rng.standard_normal(64) * scale).astype(dtype)
            written = json.loads(json.dumps(record.tensor_json(a)))
            assert (np.array(written["data"], dtype) == a).all()
            finite = a[np.isfinite(a)]                  # float16 overflows to inf at 1e6: stats skip it
            if finite.size:
                assert np.array(written["stats"]["min"], dtype) == finite.min()
    wide = rng.standard_normal(64)                       # float64 keeps every digit
    assert record.tensor_json(wide)["data"] == wide.tolist()


def test_steps_past_the_records_budget_of_step_gradients_keep_their_nodes_without_them(run, monkeypatch):
    """A record's steps carry at most MAX_STEP_TENSORS gradients (grad_in and grad_out entries),
    given in the order the graphs were recorded: the step that does not fit and every later one
    keep node, op, rule and targets, with grad_in and grad_out null, and the graph says which."""
    import json
    whole = run(LOOP, max_graphs=3)["graphs"]
    counts = [sum(1 + len(s["grad_out"]) for s in g["steps"]) for g in whole]
    assert len(set(counts)) == 1 and counts[0] == 6       # sum 1 + 1, mul 1 + 2, AccumulateGrad 1
    monkeypatch.setattr(recorder, "MAX_STEP_TENSORS", 14)  # 2 graphs whole, the third's first step
    cut = run(LOOP, max_graphs=3)["graphs"]
    # (the first graph's trajectory keeps its iterations' steps only from what the graphs leave)
    drawn = lambda g: json.dumps({k: v for k, v in g.items() if k != "trajectory"})     # noqa: E731
    assert [drawn(g) for g in cut[:2]] == [drawn(g) for g in whole[:2]]
    assert not cut[0]["trajectory"]["steps"] and whole[0]["trajectory"]["steps"]
    third = cut[2]["steps"]
    assert third[0] == whole[2]["steps"][0]
    assert third[1]["grad_in"] is None and third[1]["grad_out"] is None
    for got, want in zip(third[1:] + cut[3]["steps"], whole[2]["steps"][1:] + whole[3]["steps"]):
        assert got["grad_in"] is None and got["grad_out"] is None
        assert {k: v for k, v in got.items() if not k.startswith("grad_")} == \
            {k: v for k, v in want.items() if not k.startswith("grad_")}
    assert cut[2]["warnings"] == ["Steps 2-3 of 3 are shown without their gradients: a run record keeps the "
                                  "gradients of at most 14 tensors of backward steps (each step's gradient in and "
                                  "gradients out), and the steps recorded before these used them."]
    assert cut[3]["warnings"][0].startswith("Steps 1-3 of 3 are shown without their gradients")
    assert cut[2]["forward"] == whole[2]["forward"] and cut[3]["backward"] == whole[3]["backward"]
