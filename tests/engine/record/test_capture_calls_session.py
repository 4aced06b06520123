"""A TF1 session graph's runs are its calls, as a captured function's are: what was fed (as it was
then, though the program reuses its buffer) and fetched, the branch a tf.cond took, bounded in a
training loop of 100 runs."""
from engine.record.calls import MAX_FIRST_CALLS

SESSION = """import numpy as np
import tensorflow as tf
tf.compat.v1.disable_eager_execution()
x = tf.compat.v1.placeholder(tf.float32, shape=[None, 2])
w = tf.Variable([[1.0], [2.0]])
y = tf.matmul(x, w)
loss = tf.reduce_mean(tf.square(y - 1.0))
r = tf.cond(tf.reduce_sum(x) > 0, lambda: y * 2.0, lambda: y - 1.0)
train = tf.compat.v1.train.GradientDescentOptimizer(0.001).minimize(loss)
with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    batch = np.ones((3, 2), np.float32)
    for i in range(100):
        batch[:] = i / 100
        _, l = sess.run([train, loss], feed_dict={x: batch})
    a = sess.run(r, feed_dict={x: -batch})
    b = sess.run(r, feed_dict={x: batch})
"""


def test_session_runs_are_calls_of_their_graph(run):
    rec = run(SESSION)
    assert rec["ok"], rec["error"]
    _, step, branchy = [g for g in rec["graphs"] if g["capture"] == "session"]
    assert step["calls_total"] == 100
    assert [c["index"] for c in step["calls"]] == list(range(MAX_FIRST_CALLS)) + [99]
    assert all(c["line"] == 15 for c in step["calls"])
    # the fed batch as it was at each run, although the program refills one buffer in place
    assert [c["inputs"][0]["data"][0][0] for c in step["calls"]] == [0.0, 0.01, 0.02, 0.03, 0.99]
    assert step["calls"][0]["outputs"][-1]["data"] == 1.0             # the loss at batch 0: (0 - 1)^2
    assert len({c["fingerprint"] for c in step["calls"]}) == 5
    assert [c["branches"][0]["taken"] for c in branchy["calls"]] == ["else", "then"]
    assert branchy["calls"][1]["fingerprint"] == step["calls"][-1]["fingerprint"]   # the same batch fed
    assert branchy["calls"][1]["same_input"] == []            # runs of one session are not compared
