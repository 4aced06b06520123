"""A captured graph's backward nodes link to the forward graph as eager backward nodes do: each
node of a vjp names the forward node it differentiates (`forward_node`), an incoming gradient the
output it is for (`grad_of`), a saved value the forward node that computed it (`saved_from`) — for
trace, script, torch.compile and tf.function under a GradientTape."""
import pytest

# backward op -> the forward ops whose vjp emits it (spot checks of "the op it differentiates")
EMITTED_BY = {"tanh_backward": {"tanh"}, "threshold_backward": {"relu"}, "matmul": {"matmul", "addmm"},
              "cond": {"cond"}, "sum_to_size": {"add", "addmm", "sub", "mul"}}

TORCH_STEP = """import torch

w = torch.randn(3, 4, requires_grad=True)
b = torch.zeros(4, requires_grad=True)


def step(x, y):
    h = torch.tanh(x @ w + b)
    r = torch.relu(h) * h
    if r.sum() > 0:
        r = r * 2.0
    return ((r.sum(1) - y) ** 2).mean()


x, y = torch.randn(2, 3), torch.randn(2)
f = CAPTURE
for i in range(3):
    loss = f(x, y)
    loss.backward()
    with torch.no_grad():
        w -= 0.1 * w.grad
        b -= 0.1 * b.grad
    w.grad = None
    b.grad = None
"""

TF_STEP = """import tensorflow as tf

w = tf.Variable([[0.5, -0.2], [0.1, 0.3], [0.2, 0.2]])
b = tf.Variable([0.1, -0.1])


@tf.function
def loss_fn(x, y):
    h = tf.tanh(tf.matmul(x, w) + b)
    if tf.reduce_sum(h) > 0:
        h = h * 2.0
    return tf.reduce_mean((h - y) ** 2)


x, y = tf.constant([[1.0, 2.0, 3.0]]), tf.constant([[0.5, 0.5]])
opt = tf.keras.optimizers.SGD(0.1)
for i in range(3):
    with tf.GradientTape() as tape:
        loss = loss_fn(x, y)
    grads = tape.gradient(loss, [w, b])
    opt.apply_gradients(zip(grads, [w, b]))
print(float(loss))
"""


def check_links(graph) -> dict:
    """Every backward node is linked or says why not; returns forward id -> its backward partners."""
    forward = {n["id"]: n for n in graph["forward"]["nodes"]}
    partners: dict = {}
    for n in graph["backward"]["nodes"]:
        if n["kind"] == "input":                     # an incoming gradient or a saved forward value
            assert n["forward_node"] is None
            assert (n.get("grad_of") in forward) != (n.get("saved_from") in forward), n
            if "grad_of" in n:
                assert forward[n["grad_of"]]["id"] in {e["src"] for e in graph["forward"]["edges"]
                                                      if e["dst"] == "output"}
            continue
        if n["op"] == "output":
            assert n["forward_node"] is None
            continue
        fwd = forward[n["forward_node"]]             # a node of a vjp: the forward node it differentiates
        assert fwd["kind"] in ("op", "control") and fwd["line"] == n["line"], (n, fwd)
        assert fwd["op"] in EMITTED_BY.get(n["op"], {fwd["op"]}), (n, fwd)
        partners.setdefault(fwd["id"], []).append(n["id"])
    return partners


@pytest.mark.parametrize("capture, title", [("torch.jit.trace(step, (x, y))", "traced step"),
                                            ("torch.jit.script(step)", "scripted step (f32[2,3], f32[2])"),
                                            ("torch.compile(step)", "compiled step")])
def test_every_backward_node_of_a_captured_training_step_links_to_its_forward_node(run, capture, title):
    rec = run(TORCH_STEP.replace("CAPTURE", capture))
    assert rec["ok"], rec["error"]
    graph = next(g for g in rec["graphs"] if g["title"] == title)
    partners = check_links(graph)
    ops = {n["id"]: n["op"] for n in graph["forward"]["nodes"]}
    # every op between a parameter and the loss was differentiated, so each has partners
    differentiated = {ops[f] for f in partners}
    assert {"matmul", "add", "tanh", "relu", "mul", "sum", "sub", "pow_scalar", "mean"} <= differentiated
    if capture.startswith("torch.jit.trace"):
        assert "cond" not in ops.values()            # the trace froze the branch: r * 2.0 is a plain mul
    else:
        assert "cond" in differentiated


def test_tf_function_under_a_gradient_tape_links_its_backward(run):
    rec = run(TF_STEP)
    assert rec["ok"], rec["error"]
    (graph,) = [g for g in rec["graphs"] if g["capture"] == "function"]
    partners = check_links(graph)
    assert {"matmul", "add", "tanh", "cond", "sub", "pow", "mean"} <= {
        n["op"] for n in graph["forward"]["nodes"] if n["id"] in partners}
    # the tape's own (eager) backward still has its links, as before
    dynamic = [g for g in rec["graphs"] if g["kind"] == "dynamic"]
    assert dynamic and all(n.get("forward_node") for g in dynamic for n in g["backward"]["nodes"])


EAGER_AND_TRACED = """import torch

w = torch.tensor([[1.0, -2.0], [0.5, 1.0]], requires_grad=True)
b = torch.tensor([0.1, -0.1], requires_grad=True)


def step(x):
    h = torch.tanh(x @ w + b)
    return (h * h).sum()


x = torch.tensor([[1.0, 2.0]])
t = torch.jit.trace(step, (x,))
loss = step(x)
loss.backward()
"""


def test_a_captured_backward_steps_as_the_eager_backward_of_the_same_function(run):
    rec = run(EAGER_AND_TRACED)
    assert rec["ok"], rec["error"]
    static = next(g for g in rec["graphs"] if g["capture"] == "trace")
    eager = next(g for g in rec["graphs"] if g["kind"] == "dynamic")
    fwd = {n["id"]: n for n in static["forward"]["nodes"]}
    bwd = {n["id"]: n for n in static["backward"]["nodes"]}
    # the trace differentiates x too (every float input); eager does not (x needs no grad)
    steps = [s for s in static["steps"] if not (s["op"] == "AccumulateGrad" and fwd[s["forward_node"]]["name"] == "x")]
    assert [s["op"] for s in steps] == [s["op"] for s in eager["steps"]] == [
        "SumBackward0", "MulBackward0", "TanhBackward0", "AddBackward0", "AccumulateGrad", "MmBackward0", "AccumulateGrad"]
    for mine, theirs in zip(steps, eager["steps"]):
        assert mine["grad_in"][0]["data"] == theirs["grad_in"][0]["data"]
        mine_sent = [g["data"] for g in mine["grad_out"] if g]
        theirs_sent = [g["data"] for g in theirs["grad_out"] if g]
        # (matmul's vjp sends x a gradient too in the trace; eager sends it None)
        assert mine_sent[len(mine_sent) - len(theirs_sent):] == theirs_sent
        if mine["op"] != "AccumulateGrad":
            # a step lights the nodes of its vjp, all linked to the forward node it differentiates
            assert mine["nodes"] and mine["node"] == mine["nodes"][-1]
            assert all(bwd[n]["forward_node"] == mine["forward_node"] for n in mine["nodes"])
            assert mine["rule"] and fwd[mine["forward_node"]]["op"] == mine["forward_op"]
    add = next(s for s in steps if s["op"] == "AddBackward0")
    mm = next(s for s in steps if s["op"] == "MmBackward0")
    assert add["targets"] == [mm["node"], "output"]          # on to matmul's vjp, and to b (a graph output)
    assert [fwd[s["forward_node"]]["name"] for s in static["steps"] if s["op"] == "AccumulateGrad"] == \
        ["captured_1", "x", "captured_0"]                    # b's gradient complete first, as in eager


@pytest.mark.parametrize("start, stepped", [(4.0, True), (1e30, False)])
def test_a_loop_is_stepped_through_only_when_it_ran_a_few_times(run, start, stepped):
    # halving 1e30 down to 1 takes ~100 iterations: its backward would replay them quadratically
    rec = run("import tensorflow as tf\n\n@tf.function\ndef halve(x):\n    while tf.reduce_max(x) > 1.0:\n"
              f"        x = x / 2.0\n    return tf.reduce_sum(x * x)\n\ny = halve(tf.constant([{start}, 1.0]))\n")
    assert rec["ok"], rec["error"]
    (graph,) = [g for g in rec["graphs"] if g["capture"] == "function"]
    check_links(graph)
    assert bool(graph["steps"]) == stepped
    if stepped:
        loop = next(s for s in graph["steps"] if s["forward_op"] == "while_loop")
        # d/dx of sum((x / 4)^2) at x = [4, 1]: x / 8
        assert next(s for s in graph["steps"] if s["op"] == "AccumulateGrad")["grad_in"][0]["data"] == [0.5, 0.125]
        assert loop["grad_out"][0]["data"] == [0.5, 0.125]


def test_steps_that_would_crowd_the_run_record_are_left_out_with_a_note(run, monkeypatch):
    from engine.record import backprop
    monkeypatch.setattr(backprop, "MAX_STEPS_BYTES", 2000)
    rec = run(EAGER_AND_TRACED)
    assert rec["ok"], rec["error"]
    static = next(g for g in rec["graphs"] if g["capture"] == "trace")
    assert static["steps"] == [] and static["backward"]["nodes"]
    assert any(w.startswith("no backprop steps: StepsTooLarge: 8 steps would take") for w in static["warnings"])
