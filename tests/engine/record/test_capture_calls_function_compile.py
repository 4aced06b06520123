"""Calls of tf.function and torch.compile graphs, recorded as trace and script calls are: inputs,
outputs, fingerprints, the branch each call took, one graph (with its own calls) per retrace,
bounded in a loop, and links to other captures of the same function on the same input."""
from engine.record.calls import MAX_FIRST_CALLS


def graphs(record, capture):
    return [g for g in record["graphs"] if g["capture"] == capture]


TF_SIGN = """import tensorflow as tf


@tf.function
def f(x):
    if tf.reduce_sum(x) > 0:
        return x * 2.0
    return x - 1.0


a = f(tf.constant([1.0, 2.0]))
b = f(tf.constant([-1.0, 2.0, 3.0]))
c = f(tf.constant([-1.0, -2.0]))
d = f(tf.constant([1.0, 2.0]))
"""


def test_tf_function_calls_per_trace_with_branches_and_fingerprints(run):
    rec = run(TF_SIGN)
    assert rec["ok"], rec["error"]
    first, retraced = graphs(rec, "function")
    assert retraced["tracing_count"] == 2 and "'x' size mismatch at index 0. expected 2, actual 3" in retraced["retrace_reason"]
    # each concrete trace is its own graph with its own calls
    assert first["calls_total"] == 3 and retraced["calls_total"] == 1
    assert [c["line"] for c in first["calls"]] == [11, 13, 14] and retraced["calls"][0]["line"] == 12
    cond = next(n["id"] for n in first["forward"]["nodes"] if n["op"] == "cond")
    assert [c["branches"] for c in first["calls"]] == [[{"node": cond, "line": 6, "kind": "cond", "taken": t}]
                                                       for t in ("then", "else", "then")]
    assert [c["outputs"][0]["data"] for c in first["calls"]] == [[2.0, 4.0], [-2.0, -3.0], [2.0, 4.0]]
    assert retraced["calls"][0]["inputs"][0]["data"] == [-1.0, 2.0, 3.0]
    fingerprints = [c["fingerprint"] for c in first["calls"]]
    assert fingerprints[0] == fingerprints[2] != fingerprints[1]           # equal inputs, equal fingerprints
    assert not any(c["stale"] for c in first["calls"]) and all(c["same_input"] == [] for c in first["calls"])


def test_tf_function_call_shows_the_results_not_printed_or_assigned_tensors(run):
    rec = run("import tensorflow as tf\n\nv = tf.Variable(1.0)\n\n@tf.function\ndef f(x):\n"
              "    tf.print('x is', x)\n    v.assign(v + x)\n    return x * 3.0\n\n"
              "y = f(tf.constant(2.0))\nprint(v.numpy(), y.numpy())\n")
    assert rec["ok"], rec["error"]
    assert rec["stdout"].endswith("3.0 6.0\n")
    (call,) = graphs(rec, "function")[0]["calls"]
    assert call["inputs"][0]["data"] == 2.0                     # the argument, not the variable read
    assert [o["data"] for o in call["outputs"]] == [6.0]        # the result only


def test_a_loop_of_100_tf_function_calls_keeps_the_first_few_and_the_last(run):
    rec = run("import tensorflow as tf\n\n@tf.function\ndef f(x):\n    return x * x\n\n"
              "for i in range(100):\n    y = f(tf.constant([float(i)]))\n")
    assert rec["ok"], rec["error"]
    (g,) = graphs(rec, "function")
    assert g["calls_total"] == 100
    assert [c["index"] for c in g["calls"]] == list(range(MAX_FIRST_CALLS)) + [99]
    assert g["calls"][-1]["inputs"][0]["data"] == [99.0] and g["calls"][-1]["outputs"][0]["data"] == [9801.0]


COMPILE_SIGN = """import torch


def g(x):
    if x.sum() > 0:
        return x + 1
    return x - 1


c = torch.compile(g)
t = torch.jit.trace(g, torch.ones(2))
for v in [1.0, -1.0, 2.0, -2.0, 3.0, -3.0]:
    a = c(torch.full((2,), v))
    b = t(torch.full((2,), v))
"""


def test_compile_calls_replay_the_branch_and_link_to_a_trace_on_the_same_input(run):
    rec = run(COMPILE_SIGN)
    assert rec["ok"], rec["error"]
    (comp,), (trace,) = graphs(rec, "compile"), graphs(rec, "trace")
    assert comp["function"] == "g" and comp["calls_total"] == 6
    assert [c["index"] for c in comp["calls"]] == [0, 1, 2, 3, 5]
    # generated kernels do not say which way the cond went: the graph is replayed to find it,
    # for the first calls at once and for the last one at the end
    assert [c["branches"][0]["taken"] for c in comp["calls"]] == ["then", "else", "then", "else", "else"]
    assert [c["outputs"][0]["data"] for c in comp["calls"]] == [[2.0, 2.0], [-2.0, -2.0], [3.0, 3.0],
                                                                [-3.0, -3.0], [-4.0, -4.0]]
    assert not any(c["stale"] for c in comp["calls"])
    for c, tc in zip(comp["calls"], trace["calls"]):
        assert c["fingerprint"] == tc["fingerprint"]
        negative = c["inputs"][0]["data"][0] < 0          # the trace froze the positive branch
        assert c["same_input"] == [{"graph": trace["id"], "call": tc["index"], "capture": "trace",
                                     "agree": not negative, "max_abs_diff": 2.0 if negative else 0.0}]
        assert tc["same_input"][0]["graph"] == comp["id"] and tc["stale"] == negative


def test_compiled_module_in_a_training_loop_records_100_calls_bounded(run):
    rec = run("import torch\n\nmodel = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))\n"
              "cm = torch.compile(model)\nopt = torch.optim.SGD(model.parameters(), lr=0.01)\n"
              "for i in range(100):\n    x = torch.full((2, 3), float(i) / 100)\n"
              "    loss = (cm(x) ** 2).mean()\n    opt.zero_grad()\n    loss.backward()\n    opt.step()\n")
    assert rec["ok"], rec["error"]
    (comp,) = graphs(rec, "compile")
    assert comp["calls_total"] == 100
    assert [c["index"] for c in comp["calls"]] == list(range(MAX_FIRST_CALLS)) + [99]
    assert all(c["line"] == 8 and c["branches"] == [] for c in comp["calls"])
    # the inputs are the call's argument (the batch), not the module's parameters
    assert [len(c["inputs"]) for c in comp["calls"]] == [1] * 5
    assert comp["calls"][-1]["inputs"][0]["data"] == [[0.99] * 3] * 2
    assert len({c["fingerprint"] for c in comp["calls"]}) == 5
    assert all(c["outputs"][0]["shape"] == [2, 1] for c in comp["calls"])


def test_a_compiled_cond_whose_parameters_changed_before_the_end_has_unknown_branches_only_for_the_last(run):
    rec = run("import torch\nimport torch.nn as nn\n\nclass Gate(nn.Module):\n    def __init__(self):\n"
              "        super().__init__()\n        self.fc = nn.Linear(2, 1)\n\n    def forward(self, x):\n"
              "        h = self.fc(x)\n        if h.sum() > 0:\n            return h\n        return -h\n\n"
              "m = Gate()\ncm = torch.compile(m)\nopt = torch.optim.SGD(m.parameters(), lr=0.1)\n"
              "for i in range(6):\n    loss = cm(torch.ones(1, 2)).sum()\n    opt.zero_grad()\n"
              "    loss.backward()\n    opt.step()\n")
    assert rec["ok"], rec["error"]
    (comp,) = graphs(rec, "compile")
    first, last = comp["calls"][:MAX_FIRST_CALLS], comp["calls"][-1]
    assert all(c["branches"][0]["kind"] == "cond" for c in first)     # replayed while the weights were those
    assert last["index"] == 5 and last["branches"] is None             # opt.step() changed them in place since


def test_timing_a_compiled_function_does_not_count_as_calls_of_what_it_calls(run):
    rec = run("import torch\n\nt = torch.jit.trace(lambda x: x * 2, torch.ones(2))\n\n"
              "def h(x):\n    return t(x) + 1\n\nc = torch.compile(h)\ny = c(torch.ones(2))\nz = t(torch.ones(2))\n")
    assert rec["ok"], rec["error"]
    (trace,) = graphs(rec, "trace")
    assert trace["calls_total"] == 1 and trace["calls"][0]["line"] == 10
    assert graphs(rec, "compile")[0]["calls_total"] == 1


def test_a_replay_that_fails_leaves_the_branches_unknown_and_the_call_working(run, monkeypatch):
    from engine.capture import trail

    def broken(graph, arrays):
        raise RuntimeError("replay failed")
    monkeypatch.setattr(trail, "replayed", broken)
    rec = run(COMPILE_SIGN + "print(c(torch.full((2,), -5.0)).tolist())\n")
    assert rec["ok"], rec["error"]
    assert rec["stdout"] == "[-6.0, -6.0]\n"
    (comp,) = graphs(rec, "compile")
    assert comp["calls_total"] == 7 and all(c["branches"] is None for c in comp["calls"])


def test_compiles_timing_rerun_neither_prints_nor_warns(run):
    """torch.compile times the user's function by running it again: its prints, stderr writes and
    warnings must not show a second time (they once showed three times per call)."""
    record = run(
        "import sys, warnings\nimport torch\n"
        "def f(x):\n"
        "    print('in f', file=sys.stderr)\n"
        "    print('out f')\n"
        "    warnings.warn('careful')\n"
        "    return x * 2\n"
        "g = torch.compile(f)\n"
        "g(torch.ones(2))\n"
        "g(torch.ones(2))\n")
    assert record["error"] is None, record["error"]
    assert record["stderr"].count("in f") == 2 and record["stdout"].count("out f") == 2
    assert record["stderr"].count("UserWarning: careful") == 1
