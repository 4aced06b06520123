"""A backward call the recorder writes at once has its steps' gradients written as the walk makes
them (recorder.DynamicGraphBuilder.step_writer), so the walk frees them as without a recorder
(issue 16: holding all of them put an LSTM's walk on fresh pages). The record is the one the
recorder wrote when it held every gradient to the walk's end, number for number, and its
ValueStore keeps the same tensors within its bound: forward values first, each leaf's gradient
where its value stands, then the steps' (their ids may come in another order). A trajectory's
iteration whose steps it keeps, recorded as a graph of its own too, shares that graph's kept
values instead of copying them again (a bounded store has room for more)."""
import hashlib
import json
import tracemalloc

import pytest

from engine.record import recorder
from engine.record.values import ValueStore
from engine.runner import run_user_code

PROGRAMS = {
    # a training loop: a trajectory, whose later iterations keep their steps, and calls past max_graphs
    "loop": """import torch
torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(30, 40), torch.nn.Tanh(), torch.nn.Linear(40, 30))
opt = torch.optim.SGD(net.parameters(), lr=0.1)
x = torch.randn(16, 30)
for i in range(6):
    opt.zero_grad()
    loss = ((net(x) - x) ** 2).mean()
    loss.backward()
    opt.step()
""",
    # tied weights (one leaf, two gradients summed), a weight's .t() at every step, split gates
    "tied": """import torch
torch.manual_seed(1)
emb = torch.nn.Parameter(torch.randn(50, 20))
w = torch.nn.Parameter(torch.randn(20, 80))
h = torch.zeros(4, 20)
ids = torch.randint(0, 50, (6, 4))
for t in range(6):
    gates = emb[ids[t]] @ w.t().t() + h.repeat(1, 4)
    i, f, g, o = gates.chunk(4, 1)
    h = torch.sigmoid(o) * torch.tanh(torch.sigmoid(f) * h + torch.sigmoid(i) * torch.tanh(g))
loss = (h @ emb.t()).logsumexp(1).mean()
loss.backward()
""",
    # autograd.grad (the leaves' .grad left alone), retain_graph and a second call, create_graph
    "grad": """import torch
torch.manual_seed(2)
x = torch.randn(30, 30, requires_grad=True)
y = (x.tanh() @ x).sin().sum()
(g,) = torch.autograd.grad(y, x, create_graph=True)
g.pow(2).sum().backward(retain_graph=True)
(x * 2).sum().backward()
""",
}


def _holding_every_step(self, steps, step_tensors, stats):
    """The recorder before the step writer: every step's arrays held until the walk ends."""
    def on_step(node, grad, in_grads):
        if len(steps) < recorder.MAX_STEPS:
            steps.append((node, grad, in_grads))
    return on_step


def _record(source: str, max_bytes: int, ids: bool) -> tuple[str, set]:
    """The record's graphs as canonical JSON (a kept tensor's id as the digest of its bytes; no
    ids when `ids` is false), and what the ValueStore kept."""
    store = ValueStore(max_bytes)
    record = run_user_code(source, {"max_graphs": 2}, values=store)
    assert record["ok"], record["error"]
    digest = {e["id"]: hashlib.sha256(c).hexdigest() for e, c in zip(store.index, store.chunks)}

    def canonical(x):
        if isinstance(x, dict):
            return {k: (digest[v] if k == "values" else canonical(v)) for k, v in x.items()
                    if k != "timings" and (ids or k != "values")}
        if isinstance(x, list):
            return [canonical(v) for v in x]
        return x
    kept = {(tuple(e["shape"]), digest[e["id"]]) for e in store.index}
    return json.dumps(canonical(record["graphs"]), sort_keys=True), kept


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_the_record_and_the_kept_values_are_those_of_a_recorder_holding_every_step(name, monkeypatch):
    # bounds: everything kept; room for some of it (the leaves' gradients held for them while the
    # walk's steps come first); and a step budget that runs out within a walk
    for max_bytes, step_tensors in ((1 << 30, None), (60_000, None), (1 << 30, 40)):
        if step_tensors is not None:
            monkeypatch.setattr(recorder, "MAX_STEP_TENSORS", step_tensors)
        everything = max_bytes > 1 << 20
        got = _record(PROGRAMS[name], max_bytes, ids=everything)
        with monkeypatch.context() as m:
            m.setattr(recorder.DynamicGraphBuilder, "step_writer", _holding_every_step)
            want = _record(PROGRAMS[name], max_bytes, ids=everything)
        assert got[0] == want[0], (name, max_bytes, step_tensors)
        assert got[1] == want[1] if everything else got[1] >= want[1], (name, max_bytes, step_tensors)


CHAIN = """import torch
x = torch.ones(512, 512, requires_grad=True)
y = x
for _ in range(40):
    y = y * 1.01
y.sum().backward()
"""


def test_the_walk_frees_each_gradient_once_it_is_written(monkeypatch):
    """40 steps of 1 MB gradients: held to the walk's end they were all alive at once."""
    def peak(**patch) -> float:
        with monkeypatch.context() as m:
            for name, value in patch.items():
                m.setattr(recorder.DynamicGraphBuilder, name, value)
            tracemalloc.start()
            run_user_code(CHAIN, {}, values=ValueStore(0))
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
        return peak / 2**20
    written, held = peak(), peak(step_writer=_holding_every_step)
    # (the forward's 40 values, 1 MB each, live through the walk either way)
    assert held > written + 30, (written, held)
    assert written < 45 + 20, written
