"""A training loop's trajectory: the first graph's values over the iterations (engine/record/trajectory.py)."""
import json

import numpy as np
import pytest

from engine.record import trajectory
from engine.record.values import ValueStore
from engine.runner import run_user_code

LOOP = """import torch
torch.manual_seed(0)
w = torch.randn(3, 4, requires_grad=True)
b = torch.zeros(4, requires_grad=True)
x = torch.randn(5, 3)
for step in range({n}):
    print("w", w.detach().tolist())
    loss = ((x @ w + b) ** 2).mean()
    loss.backward()
    print("loss", loss.item())
    print("g", w.grad.tolist())
    with torch.no_grad():
        w.sub_(0.1 * w.grad)
        b.sub_(0.1 * b.grad)
    w.grad = None
    b.grad = None
"""


def printed(rec, name):
    return [json.loads(line.split(" ", 1)[1]) for line in rec["stdout"].splitlines() if line.startswith(name + " ")]


def node_id(graph, label):
    return next(n["id"] for n in graph["forward"]["nodes"] if n["label"] == label)


def test_every_iteration_of_a_short_loop_is_kept_with_its_loss_values_and_gradients():
    rec = run_user_code(LOOP.format(n=6))
    assert rec["error"] is None
    g = rec["graphs"][0]
    tr = g["trajectory"]
    assert tr["iterations"] == [0, 1, 2, 3, 4, 5] and tr["total"] == 6 and tr["every"] == 1
    assert np.allclose(tr["loss"], printed(rec, "loss"), rtol=1e-6)
    w = node_id(g, "w")
    values = next(t for t in tr["tensors"] if t["node"] == w and t["of"] == "value")["at"]
    grads = next(t for t in tr["tensors"] if t["node"] == w and t["of"] == "grad")["at"]
    # small tensors whole, each iteration's own (the record writes float32 in its shortest digits)
    assert np.array_equal(np.array([v["data"] for v in values], np.float32), np.array(printed(rec, "w"), np.float32))
    assert np.allclose([gr["data"] for gr in grads], printed(rec, "g"), rtol=1e-6)
    # the summaries: statistics and strip of each iteration's values, the same numbers
    series = next(s for s in tr["series"] if s["node"] == w and s["of"] == "value")
    for k, want in enumerate(printed(rec, "w")):
        a = np.array(want, dtype=np.float32).astype(np.float64)
        assert np.allclose(series["stats"][k], [a.min(), a.max(), a.mean(), a.std()], rtol=1e-5, atol=1e-7)
        flat = a.reshape(-1)      # cell j: elements j*n//8 .. (j+1)*n//8 - 1
        cells = [flat[j * flat.size // 8:(j + 1) * flat.size // 8].mean() for j in range(8)]
        assert np.allclose(series["strip"][k], cells, rtol=1e-3)
    # the iteration drawn is iteration 0: its summary is the graph's own value
    drawn = next(n for n in g["forward"]["nodes"] if n["id"] == w)["value"]["stats"]
    assert np.allclose(series["stats"][0], [drawn[k] for k in ("min", "max", "mean", "std")], rtol=1e-5)   # (6 digits)
    # each op node's values too, and the leaves' gradients
    assert {s["node"] for s in tr["series"] if s["of"] == "value"} == {n["id"] for n in g["forward"]["nodes"]}
    assert {s["node"] for s in tr["series"] if s["of"] == "grad"} == {w, node_id(g, "b")}
    json.dumps(rec, allow_nan=False)


def test_later_iterations_can_be_stepped_through_with_their_own_gradients():
    rec = run_user_code(LOOP.format(n=6))
    g = rec["graphs"][0]
    tr = g["trajectory"]
    assert [s["iteration"] for s in tr["steps"]] == [1, 2, 3, 4, 5]
    w = node_id(g, "w")
    for kept in tr["steps"]:
        steps = kept["steps"]
        assert [(s["node"], s["op"]) for s in steps] == [(s["node"], s["op"]) for s in g["steps"]]
        acc = next(s for s in steps if s["op"] == "AccumulateGrad" and s["forward_node"] == w)
        want = printed(rec, "g")[kept["iteration"]]
        assert np.allclose(acc["grad_in"][0]["data"], want, rtol=1e-6)


def test_a_long_loop_keeps_a_sample_spanning_it_and_says_which():
    rec = run_user_code(LOOP.format(n=300).replace('    print("w", w.detach().tolist())\n', "")
                        .replace('    print("g", w.grad.tolist())\n', ""))
    tr = rec["graphs"][0]["trajectory"]
    its = tr["iterations"]
    assert tr["total"] == 300 and len(its) <= trajectory.MAX_ITERATIONS
    assert tr["every"] > 1 and all(i % tr["every"] == 0 for i in its) and its[0] == 0 and its[-1] >= 300 - tr["every"]
    assert len(tr["loss"]) == len(its) and all(len(s["stats"]) == len(its) for s in tr["series"])
    assert np.allclose(tr["loss"], [printed(rec, "loss")[i] for i in its], rtol=1e-6)
    assert 0 < len(tr["steps"]) <= trajectory.MAX_STEP_ITERATIONS
    assert {s["iteration"] for s in tr["steps"]} <= set(its)


def test_calls_of_another_shape_are_not_iterations_and_one_call_has_no_trajectory():
    code = """import torch
w = torch.ones(2, requires_grad=True)
for step in range(4):
    (w * w).sum().backward()
    (w * 3).sum().backward()     # another graph in the same loop
"""
    tr = run_user_code(code)["graphs"][0]["trajectory"]
    assert tr["total"] == 4 and tr["iterations"] == [0, 1, 2, 3]
    one = run_user_code("import torch\nw = torch.ones(2, requires_grad=True)\n(w * w).sum().backward()\n")
    assert "trajectory" not in one["graphs"][0]


def test_large_parameters_go_through_the_values_side_channel_within_its_budget():
    code = """import torch
torch.manual_seed(0)
w = torch.randn(64, 64, requires_grad=True)
x = torch.randn(8, 64)
for step in range(20):
    loss = (x @ w).pow(2).mean()
    loss.backward()
    with torch.no_grad():
        w -= 0.01 * w.grad
    w.grad = None
"""
    store = ValueStore(64 << 20)
    rec = run_user_code(code, values=store)
    tr = rec["graphs"][0]["trajectory"]
    w = node_id(rec["graphs"][0], "w")
    at = next(t for t in tr["tensors"] if t["node"] == w and t["of"] == "value")["at"]
    kept = [a for a in at if a is not None]
    assert kept and all(set(a) == {"shape", "dtype", "data", "stats", "values"} for a in kept)
    by_id = dict(zip([e["id"] for e in store.index], store.chunks))
    series = next(s for s in tr["series"] if s["node"] == w and s["of"] == "value")
    for k, a in enumerate(at):
        if a is not None:
            arr = np.frombuffer(by_id[a["values"]], dtype=np.float32)
            assert abs(arr.mean() - series["stats"][k][2]) < 1e-6
    # without a side channel the large ones are left out: the summaries stand for them
    rec = run_user_code(code)
    at = next(t for t in rec["graphs"][0]["trajectory"]["tensors"] if t["of"] == "value")["at"]
    assert all(a is None for a in at)


def test_summaries_of_values_not_finite():
    out = np.full((3, 4 + trajectory.STRIP), np.nan)
    trajectory.summarise([np.array([1.0, np.inf, 3.0], np.float32), np.array([np.nan], np.float32), None], out)
    assert out[0, :4].tolist() == [1.0, 3.0, 2.0, 1.0]
    assert np.isnan(out[1]).all() and np.isnan(out[2]).all()


def test_summaries_sharing_the_record_s_statistics_are_the_same_numbers():
    """The first call's summaries and its record share one BlockStats (each block summed once):
    the rows are those of summarise alone, views, other dtypes and integer arrays included (an
    integer array's float64 copy is a temporary, which must not be remembered by its address:
    the next one's may be the same)."""
    from engine.record.values import BlockStats, TensorMemo, tensor_json
    rng = np.random.default_rng(3)
    block = rng.standard_normal((64, 48)).astype(np.float32)
    arrays = [block, block.T, block.reshape(-1), block[:, 1:], rng.standard_normal(700),
              *(rng.integers(-1, 27, (32, 16)) for _ in range(4)), rng.integers(0, 5, 300).astype(np.int32),
              np.arange(100, dtype=np.float16)]
    alone = np.full((len(arrays), 4 + trajectory.STRIP), np.nan)
    trajectory.summarise(arrays, alone)
    stats = BlockStats()
    shared = np.full_like(alone, np.nan)
    trajectory.summarise(arrays, shared, stats=stats)
    assert alone.tobytes() == shared.tobytes()
    memo = TensorMemo(ValueStore(1 << 30), stats)
    shown = [memo(a) for a in arrays]
    memo.flush()
    for a, out in zip(arrays, shown):
        want = tensor_json(a, heatmap=False)
        assert json.dumps({k: v for k, v in out.items() if k != "values"}) == json.dumps(want)


def test_views_of_one_layout_are_summarised_once(monkeypatch):
    """Distinct view objects reading one block the same way (a weight's .t() at each step of a
    recurrent loop) share a row, without a C-ordered copy each for its strip; another order of
    the block, or a view with gaps, has its own row. Every row is the one it has alone."""
    rng = np.random.default_rng(4)
    block = (rng.standard_cauchy((40, 30)) * 1e3).astype(np.float32)
    arrays = [block.T, block.T, block.T.T.T, block, block.reshape(30, 40), block[:, 1:], block.T]
    alone = np.full((len(arrays), 4 + trajectory.STRIP), np.nan)
    for i, a in enumerate(arrays):
        trajectory.summarise([a], alone[i:i + 1])
    copies = []
    real = np.ascontiguousarray
    monkeypatch.setattr(trajectory.np, "ascontiguousarray", lambda a: copies.append(a.shape) or real(a))
    together = np.full_like(alone, np.nan)
    trajectory.summarise(arrays, together)
    assert together.tobytes() == alone.tobytes()
    if trajectory._native_strip() is not None and trajectory.native.loaded() is not None:
        # the transpose's strip; the view with gaps: its strip's (its statistics read it in
        # fastops' summary, which gathers it in memory order itself)
        assert copies == [(30, 40), (40, 29)]


def test_a_large_array_s_strip_summed_cell_by_cell_is_reduceat_s():
    """block_sums: each cell's reduceat on its own slice (no float64 copy of the whole array) gives
    reduceat's sums bit for bit, across numpy's 8192-element buffers, for float32 (cast), float64
    and integers; the strip's cells are never empty."""
    rng = np.random.default_rng(5)
    for n in (8, 9, 65, 8191, 8193, 70_001, 300_007):
        for dtype in (np.float32, np.float64, np.int64):
            flat = (rng.standard_cauchy(n) * 1e3).astype(dtype) if dtype != np.int64 else rng.integers(-9, 9, n)
            starts, _ = trajectory._cells(n, min(trajectory.STRIP, n))
            want = np.add.reduceat(flat, starts, dtype=np.float64)
            old, trajectory.WHOLE_REDUCEAT = trajectory.WHOLE_REDUCEAT, 0      # cell by cell at any size
            try:
                got = trajectory.block_sums(flat, starts)
            finally:
                trajectory.WHOLE_REDUCEAT = old
            assert got.tobytes() == want.tobytes(), (n, dtype)


def test_summaries_with_the_strips_in_c_are_numpy_s_bit_for_bit(monkeypatch):
    """summarise's strips by fastops' strip (float32/float64, any layout: a strided view's values in
    their flattened order) and by block_sums in numpy: the same rows, integers, float16, a swapped
    byte order and values that are not finite included."""
    if trajectory._native_strip() is None:
        pytest.skip("engine/native's strip is not in use here")
    rng = np.random.default_rng(9)
    block = (rng.standard_cauchy((48, 70)) * 1e3).astype(np.float32)
    poisoned = rng.standard_normal((9, 11))
    poisoned[2, 3] = np.inf
    arrays = [block, block.T, block[:, 1::3], block[::-1], block.astype(np.float64).T[5:], rng.standard_normal(5),
              rng.standard_normal(1), poisoned, np.full(20, np.nan, np.float32), rng.integers(-5, 5, 300),
              np.arange(100, dtype=np.float16), (rng.standard_normal(500) * 3).astype(">f4")]
    with_c = np.full((len(arrays), 4 + trajectory.STRIP), np.nan)
    trajectory.summarise(arrays, with_c)
    monkeypatch.setattr(trajectory, "_native_strip", lambda: None)
    numpy_only = np.full_like(with_c, np.nan)
    trajectory.summarise(arrays, numpy_only)
    assert with_c.tobytes() == numpy_only.tobytes()


def test_small_parameters_are_kept_at_every_kept_iteration_while_large_ones_are_sampled(monkeypatch):
    """A bias written whole in the record is kept at each kept iteration (the inspector shows its
    numbers wherever the slider is); a weight on the side channel only within VALUES_BYTES."""
    code = """import torch
torch.manual_seed(0)
w = torch.randn(64, 64, requires_grad=True)
b = torch.zeros(64, requires_grad=True)
x = torch.randn(8, 64)
for step in range(20):
    loss = (x @ w + b).pow(2).mean()
    loss.backward()
    with torch.no_grad():
        w -= 0.01 * w.grad
        b -= 0.01 * b.grad
    w.grad = None
    b.grad = None
"""
    monkeypatch.setattr(trajectory, "VALUES_BYTES", 4 * 2 * 64 * 64 * 4)      # four iterations of w
    rec = run_user_code(code, values=ValueStore(64 << 20))
    g = rec["graphs"][0]
    tensors = {(t["node"], t["of"]): t["at"] for t in g["trajectory"]["tensors"]}
    w, b = node_id(g, "w"), node_id(g, "b")
    assert all(a is not None and a["data"] is not None for of in ("value", "grad") for a in tensors[b, of])
    kept_w = [a for a in tensors[w, "value"] if a is not None]
    assert 0 < len(kept_w) <= 4 < len(g["trajectory"]["iterations"])
