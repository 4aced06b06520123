"""Calls of traced and scripted graphs recorded on their static-graph record: inputs, outputs,
branches, a trace's stale calls (its frozen branch wrong for the input) found without running the
user's function again, trace and script compared on the same input, and the bounds."""
from engine.record.calls import MAX_FIRST_CALLS
from engine.user_code import condition_text
from engine.runner import register_source

MODEL = """import torch


def my_model(x):
    y = x * 2
    if x.sum() > 0:  # the branch the trace freezes
        y = y + 1
    else:
        y = y - 1
    return y


traced = torch.jit.trace(my_model, torch.ones(3))
scripted = torch.jit.script(my_model)
pos = torch.tensor([0.5, 1.0, 2.0])
neg = -torch.ones(3)
a = traced(pos)
b = scripted(pos)
c = traced(neg)
d = scripted(neg)
print(c, d)
"""


def graph(record, capture, title=None):
    return next(g for g in record["graphs"] if g["capture"] == capture and (title is None or g["title"] == title))


def test_a_trace_call_on_an_input_that_takes_the_other_branch_is_stale(run):
    rec = run(MODEL)
    assert rec["ok"], rec["error"]
    trace = graph(rec, "trace")
    assert trace["function"] == "my_model" and trace["calls_total"] == 2
    fresh, stale = trace["calls"]
    assert (fresh["index"], fresh["line"], fresh["stale"], fresh["reason"]) == (0, 17, False, None)
    assert fresh["inputs"][0]["data"] == [0.5, 1.0, 2.0] and fresh["outputs"][0]["data"] == [2.0, 3.0, 5.0]
    (check,) = fresh["branches"]
    assert check == {"node": trace["frozen"][0]["node"], "line": 6, "kind": "frozen", "read": "bool",
                     "code": "x.sum() > 0", "traced": True, "now": True, "holds": True}
    assert stale["stale"] and stale["line"] == 19 and stale["outputs"][0]["data"] == [-1.0, -1.0, -1.0]
    assert stale["branches"][0]["now"] is False and stale["branches"][0]["holds"] is False
    assert stale["reason"] == ("traced with x.sum() > 0 true; this input makes it false: "
                               "the trace still runs the true branch (line 6)")
    assert any(w.startswith("line 19: stale trace: traced my_model") for w in rec["warnings"])


def test_a_script_call_records_the_branch_it_took_and_the_trace_it_disagrees_with(run):
    rec = run(MODEL)
    trace, script = graph(rec, "trace"), graph(rec, "script", "scripted my_model (f32[3])")
    assert graph(rec, "script", "scripted my_model").get("calls") is None     # compiled before any call: not run
    on_pos, on_neg = script["calls"]
    cond = next(n["id"] for n in script["forward"]["nodes"] if n["op"] == "cond")
    assert on_pos["branches"] == [{"node": cond, "line": 6, "kind": "cond", "taken": "then"}]
    assert on_neg["branches"] == [{"node": cond, "line": 6, "kind": "cond", "taken": "else"}]
    assert not on_neg["stale"] and on_neg["outputs"][0]["data"] == [-3.0, -3.0, -3.0]
    # the same input through both: the fingerprints match, and each call says whether the other agrees
    assert on_neg["fingerprint"] == trace["calls"][1]["fingerprint"] != on_pos["fingerprint"]
    assert on_pos["same_input"] == [{"graph": trace["id"], "call": 0, "capture": "trace", "agree": True,
                                     "max_abs_diff": 0.0}]
    assert on_neg["same_input"] == [{"graph": trace["id"], "call": 1, "capture": "trace", "agree": False,
                                     "max_abs_diff": 2.0}]
    assert trace["calls"][1]["same_input"][0]["graph"] == script["id"]


def test_a_loop_of_calls_keeps_the_first_few_and_the_last_and_warns_once(run):
    rec = run("import torch\n\ndef f(x):\n    if x.sum() > 0:\n        return x + 1\n    return x - 1\n\n"
              "t = torch.jit.trace(f, torch.ones(2))\n"
              "for i in range(30):\n    out = t(torch.full((2,), float(i % 2 * 2 - 1)))\n")
    assert rec["ok"], rec["error"]
    trace = graph(rec, "trace")
    assert trace["calls_total"] == 30
    assert [c["index"] for c in trace["calls"]] == list(range(MAX_FIRST_CALLS)) + [29]
    assert [c["stale"] for c in trace["calls"]] == [True, False, True, False, False]   # x = -1, 1, -1, 1, ..., 1
    assert sum("stale trace" in w for w in rec["warnings"]) == 1


def test_a_value_read_while_tracing_is_checked_too(run):
    rec = run("import torch\n\ndef f(x):\n    return x * x.max().item()\n\n"
              "t = torch.jit.trace(f, torch.tensor([1.0, 3.0]))\nprint(t(torch.tensor([1.0, 3.0])), t(torch.tensor([5.0, 1.0])))\n")
    assert rec["ok"], rec["error"]
    same, other = graph(rec, "trace")["calls"]
    assert not same["stale"] and other["stale"]
    assert other["branches"][0]["read"] == "item" and (other["branches"][0]["traced"], other["branches"][0]["now"]) == (3.0, 5.0)
    assert other["reason"].startswith("while tracing, return x * x.max().item() read 3.0 from a tensor; this input gives 5.0")
    assert other["outputs"][0]["data"] == [15.0, 3.0]                # the stale trace: x * 3.0, not x * 5.0


def test_the_users_function_is_not_run_again_and_captures_are_not_calls(run):
    rec = run("import torch\n\ndef f(x):\n    print('ran f')\n    if x.sum() > 0:\n        return x + 1\n    return x - 1\n\n"
              "t = torch.jit.trace(f, torch.ones(2))\n"
              "def g(x):\n    return t(x) * 2\n\n"
              "s = torch.jit.script(g)\ng2 = torch.jit.trace(g, torch.ones(2))\n"
              "print(t(-torch.ones(2)))\n")
    assert rec["ok"], rec["error"]
    assert rec["stdout"].count("ran f") == 1                         # traced once; calls replay the graph
    t_graph = next(g for g in rec["graphs"] if g["title"] == "traced f")
    assert t_graph["calls_total"] == 1 and t_graph["calls"][0]["line"] == 15   # only the call the program made
    assert t_graph["calls"][0]["stale"]


def test_condition_text_drops_the_keyword_the_colon_and_the_comment():
    register_source("if x.sum() > 0:  # note: # more\nwhile (y < 3).all():\nz = int(x.item())\n")
    assert condition_text(1) == "x.sum() > 0"
    assert condition_text(2) == "(y < 3).all()"
    assert condition_text(3) == "z = int(x.item())"
    assert condition_text(None) is None


def test_no_recorder_no_calls_and_calls_still_work():
    import engine
    from engine.compat.torch import jit
    t = jit.trace(lambda x: x * 2, engine.ones(2))
    assert t._calls is None and t(engine.ones(2)).tolist() == [2.0, 2.0]


def test_engine_function_calls_record_the_branch_and_loop_count_per_signature(run):
    rec = run("import dagscope as ds\n\n@ds.function\ndef halve(x):\n    if x.sum() > 0:\n        y = x\n    else:\n"
              "        y = -x\n    while y.max() > 1.0:\n        y = y / 2.0\n    return y\n\n"
              "a = halve(ds.tensor([4.0, 1.0]))\nb = halve(ds.tensor([-1.0, -0.5]))\nc = halve(ds.tensor([1.0, 2.0, 3.0]))\n")
    assert rec["ok"], rec["error"]
    first, second = [g for g in rec["graphs"] if g["capture"] == "function"]
    assert first["calls_total"] == 2 and second["calls_total"] == 1          # one graph per signature
    kinds = [[(b["kind"], b.get("taken", b.get("iterations"))) for b in c["branches"]] for c in first["calls"]]
    assert kinds == [[("cond", "then"), ("while", 2)], [("cond", "else"), ("while", 0)]]
    assert first["calls"][0]["outputs"][0]["data"] == [1.0, 0.25] and not any(c["stale"] for c in first["calls"])


def test_a_tensor_changed_in_place_after_the_call_shows_no_value_rather_than_a_wrong_one(run):
    rec = run("import torch\n\ndef f(x):\n    return x * 2\n\nt = torch.jit.trace(f, torch.ones(2))\n"
              "x = torch.tensor([1.0, 2.0])\ny = t(x)\nx.add_(10.0)\nz = t(torch.tensor([3.0, 4.0]))\nz.mul_(0.0)\n")
    assert rec["ok"], rec["error"]
    first, second = graph(rec, "trace")["calls"]
    assert first["inputs"] == [None] and first["fingerprint"] is None    # x changed after the call
    assert first["outputs"][0]["data"] == [2.0, 4.0]
    assert second["inputs"][0]["data"] == [3.0, 4.0] and second["outputs"] == [None]   # z changed after it


def test_a_traced_and_a_scripted_module_are_compared_on_the_same_input(run):
    rec = run("import torch\nimport torch.nn as nn\n\nclass Gate(nn.Module):\n    def __init__(self):\n"
              "        super().__init__()\n        self.fc = nn.Linear(2, 2)\n\n    def forward(self, x):\n"
              "        h = self.fc(x)\n        if h.sum() > 0:\n            return h\n        return -h\n\n"
              "m = Gate()\nwith torch.no_grad():\n    m.fc.weight.copy_(torch.eye(2))\n    m.fc.bias.zero_()\n"
              "x = torch.tensor([[1.0, 2.0]])\nt = torch.jit.trace(m, x)\ns = torch.jit.script(m)\n"
              "a, b = t(-x), s(-x)\nprint(a.tolist(), b.tolist())\n")
    assert rec["ok"], rec["error"]
    assert rec["stdout"].endswith("[[-1.0, -2.0]] [[1.0, 2.0]]\n")      # h = -x: the trace returns h, the script -h
    (call,) = graph(rec, "trace")["calls"]
    assert call["stale"] and call["branches"][0]["code"] == "h.sum() > 0"
    assert call["same_input"] == [{"graph": graph(rec, "script", "scripted Gate (f32[1,2])")["id"], "call": 0,
                                   "capture": "script", "agree": False, "max_abs_diff": 4.0}]


def test_nan_read_while_tracing_or_on_a_call_keeps_the_record_strict_json(run):
    import json
    rec = run("import torch\n\ndef f(x):\n    return x * x.sum().item()\n\n"
              "t = torch.jit.trace(f, torch.tensor([float('nan'), 1.0]))\ny = t(torch.tensor([1.0, 1.0]))\n"
              "z = t(torch.tensor([float('inf'), 1.0]))\n")
    assert rec["ok"], rec["error"]
    json.dumps(rec, allow_nan=False)                                  # what the sandbox child sends
    trace = graph(rec, "trace")
    assert trace["frozen"][0]["value"] == "nan"
    assert [c["branches"][0]["now"] for c in trace["calls"]] == [2.0, "inf"]
    assert all(c["stale"] for c in trace["calls"])
