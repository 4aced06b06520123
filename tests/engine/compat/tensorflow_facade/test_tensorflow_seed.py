"""Seed 000's two TensorFlow snippets, pasted unmodified, print 5; the TF1 one runs as a graph."""

SEED_TF1 = """import tensorflow as tf

# 构建图阶段
a = tf.constant(2)
b = tf.constant(3)
c = tf.add(a, b)

# 执行图阶段
with tf.Session() as sess:
    result = sess.run(c)
    print(result)  # 输出 5
"""

SEED_TF2 = """import tensorflow as tf

# 直接执行，不用Session
a = tf.constant(2)
b = tf.constant(3)
c = tf.add(a, b)
print(c.numpy())  # 输出 5
"""


def test_tf1_session_snippet_prints_5(run):
    record = run(SEED_TF1)
    assert record["ok"], record["error"]
    assert record["stdout"] == "5\n"


def test_tf1_snippet_builds_a_graph_and_records_the_session_run(run):
    record = run(SEED_TF1 + "print(c)\n")
    assert record["stdout"] == '5\nTensor("Add:0", shape=(), dtype=int32)\n'
    (graph,) = [g for g in record["graphs"] if g["capture"] == "session"]
    assert graph["kind"] == "static"
    ops = [n["op"] for n in graph["forward"]["nodes"]]
    assert ops.count("constant") == 2 and "add" in ops
    add = next(n for n in graph["forward"]["nodes"] if n["op"] == "add")
    assert add["line"] == 6 and add["value"]["data"] == 5
    assert [p["name"] for p in graph["passes"]][:1] == ["constant_folding"]
    assert any("TF1 graph mode" in w for w in record["warnings"])


def test_tf2_eager_snippet_prints_5(run):
    record = run(SEED_TF2)
    assert record["ok"], record["error"]
    assert record["stdout"] == "5\n"
    assert record["warnings"] == []


def test_tf2_eager_tensor_prints_like_tensorflow(run):
    record = run(SEED_TF2 + "print(c)\nprint(repr(c))\n")
    assert record["stdout"] == ("5\ntf.Tensor(5, shape=(), dtype=int32)\n"
                                "<tf.Tensor: shape=(), dtype=int32, numpy=5>\n")


def test_mode_does_not_leak_between_runs(run):
    assert run(SEED_TF1)["stdout"] == "5\n"
    assert run(SEED_TF2 + "print(tf.executing_eagerly())\n")["stdout"] == "5\nTrue\n"
