"""TF1 graphs: symbolic tensors, placeholders and Session.run lowered to the IR and interpreted."""
import numpy as np
import pytest

import engine.compat.tensorflow as tf
from engine import record
from engine.compat.tensorflow import context
from engine.errors import UnsupportedError


@pytest.fixture
def graph_mode():
    """A fresh TF1 state for library use (the runner gives each run its own state)."""
    rec = record.Recorder()
    with record.use_recorder(rec):
        tf.compat.v1.disable_eager_execution()
        yield rec


def test_graph_tensors_are_symbolic(graph_mode):
    a = tf.constant(2)
    b = tf.constant(3)
    c = tf.add(a, b)
    d = tf.add(c, 1)
    assert str(c) == 'Tensor("Add:0", shape=(), dtype=int32)'
    assert d.name == "Add_1:0" and (a + b).name == "add:0"
    assert repr(c.op) == "<tf.Operation 'Add' type=AddV2>"
    with pytest.raises(AttributeError, match="Session"):
        c.numpy()
    with pytest.raises(TypeError, match="Python `bool`"):
        bool(c)
    with tf.compat.v1.Session() as sess:
        assert sess.run(d) == 6


def test_placeholders_feed_dict_and_fetch_structures(graph_mode):
    x = tf.compat.v1.placeholder(tf.float32, shape=[None, 3], name="x")
    w = tf.constant(np.arange(6, dtype=np.float32).reshape(3, 2))
    h = tf.nn.relu(tf.matmul(x, w) - 4.0)
    p = tf.nn.softmax(h)
    total = tf.reduce_sum(p, axis=1)
    assert str(h) == 'Tensor("Relu:0", shape=(None, 2), dtype=float32)'
    assert total.shape.as_list() == [None]
    feed = np.array([[1.0, 0.0, 2.0], [0.0, 0.0, 0.0]], np.float32)
    with tf.compat.v1.Session() as sess:
        hv, out = sess.run([h, {"p": p, "t": (total,)}], feed_dict={x: feed})
        mean_of_ones = sess.run(tf.reduce_mean(h), {x: np.ones((4, 3))})      # another batch size
    assert mean_of_ones == pytest.approx(np.maximum(np.ones((4, 3)) @ np.arange(6).reshape(3, 2) - 4, 0).mean())
    expected = np.maximum(feed @ np.arange(6).reshape(3, 2) - 4.0, 0)
    np.testing.assert_allclose(hv, expected)
    e = np.exp(expected - expected.max(1, keepdims=True))
    np.testing.assert_allclose(out["p"], e / e.sum(1, keepdims=True), rtol=1e-6)
    np.testing.assert_allclose(out["t"][0], [1.0, 1.0], rtol=1e-6)


def test_feeding_errors(graph_mode):
    x = tf.compat.v1.placeholder(tf.float32, shape=[None, 3])
    y = tf.reduce_sum(x)
    with tf.compat.v1.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="must feed a value for placeholder tensor "
                                                                  "'Placeholder' with dtype float32 and shape"):
            sess.run(y)
        with pytest.raises(ValueError, match=r"Cannot feed value of shape \(2, 4\)"):
            sess.run(y, {x: np.ones((2, 4))})


def test_definition_time_shape_errors(graph_mode):
    with pytest.raises(ValueError):
        tf.matmul(tf.ones([2, 3]), tf.ones([4, 5]))


def test_session_graph_is_recorded_once_per_signature(graph_mode):
    x = tf.compat.v1.placeholder(tf.float32, shape=[2])
    y = x * 2.0
    with tf.compat.v1.Session() as sess:
        for i in range(5):
            sess.run(y, {x: [i, i]})
        sess.run(y, {x: [1.0, 2.0]})
    graphs = [g for g in graph_mode.graphs if g["capture"] == "session"]
    assert len(graphs) == 1
    assert graphs[0]["kind"] == "static" and "mul" in graphs[0]["ir"]
    assert [p["name"] for p in graphs[0]["passes"]] == ["constant_folding", "algebraic_simplification", "cse",
                                                         "dce", "fusion", "memory_planning"]


def test_random_ops_sample_on_every_run(graph_mode):
    r = tf.random.normal([3])
    with tf.compat.v1.Session() as sess:
        a, b = sess.run(r), sess.run(r)
    assert a.shape == (3,) and not np.array_equal(a, b)


def test_eval_with_default_session(graph_mode):
    c = tf.constant([1.0, 2.0]) * 3.0
    sess = tf.compat.v1.InteractiveSession()
    assert c.eval().tolist() == [3.0, 6.0]
    sess.close()


def test_graph_as_default_inside_an_eager_program():
    g = tf.Graph()
    with g.as_default():
        c = tf.constant(1.0) + 2.0
        assert not tf.executing_eagerly()
    assert tf.executing_eagerly()
    assert c.graph is g
    with tf.compat.v1.Session(graph=g) as sess:
        assert sess.run(c) == 3.0


def test_eager_tensor_fetch_explains_the_mode():
    with pytest.raises(TypeError, match="disable_eager_execution"):
        tf.compat.v1.Session().run(tf.constant(1))


def test_tf1_program_detection():
    assert context.tf1_names_used(["import tensorflow as tf\n", "s = tf.Session()\n"]) == {"Session"}
    assert context.tf1_names_used(["x = tf.compat.v1.placeholder(tf.float32)\n"]) == {"placeholder"}
    assert context.tf1_names_used(["x = tf.constant(1)\n", "print(x.numpy())\n"]) == set()


def test_tf1_program_in_a_run(run):
    code = ("import numpy as np\nimport tensorflow as tf\n"
            "x = tf.placeholder(tf.float32, shape=[None, 2])\n"
            "y = tf.reduce_mean(tf.matmul(x, tf.constant([[1.0], [2.0]])))\n"
            "with tf.Session() as sess:\n"
            "    print(sess.run(y, feed_dict={x: np.array([[1.0, 1.0], [2.0, 2.0]])}))\n")
    record = run(code)
    assert record["ok"], record["error"]
    assert record["stdout"] == "4.5\n"
    graph = next(g for g in record["graphs"] if g["capture"] == "session")
    assert next(n for n in graph["forward"]["nodes"] if n["op"] == "matmul")["line"] == 4
    x_node = next(n for n in graph["forward"]["nodes"] if n["kind"] == "input")
    assert x_node["shape"] == [2, 2] and x_node["name"] == "Placeholder"     # specialized to the fed shape


TF1_TRAINING = """import numpy as np
import tensorflow as tf

x = tf.placeholder(tf.float32, shape=[None, 2], name="x")
y = tf.placeholder(tf.float32, shape=[None], name="y")
W = tf.Variable(tf.zeros([2, 1]), name="W")
b = tf.Variable(0.0, name="b")
loss = tf.reduce_mean(tf.square(tf.reshape(tf.matmul(x, W), [-1]) + b - y))
train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
grad_W, = tf.gradients(loss, [W])

data_x = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]], np.float32)
data_y = data_x @ np.array([1.0, 2.0], np.float32) + 0.5
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    print(sess.run(grad_W, {x: data_x, y: data_y}).ravel())
    for step in range(300):
        _, l = sess.run([train, loss], feed_dict={x: data_x, y: data_y})
    print(sess.run(W).ravel().round(2), round(float(sess.run(b)), 2), l < 1e-4)
"""


def test_tf1_training_with_variables_gradients_and_an_optimizer(run):
    record = run(TF1_TRAINING)
    assert record["ok"], record["error"]
    first, last = record["stdout"].splitlines()
    # d/dW mean((xW + b - y)^2) at W=0, b=0 is -2/3 x^T y, by hand:
    y = np.array([5.5, 1.5, 2.0])
    x = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]])
    np.testing.assert_allclose([float(v) for v in first.strip("[]").split()], -2 / 3 * x.T @ y, rtol=1e-5)
    assert last == "[1. 2.] 0.5 True"
    step = next(g for g in record["graphs"] if g["title"].startswith("Session.run(GradientDescent, Mean)"))
    ops = [n["op"] for n in step["forward"]["nodes"]]
    params = [n["name"] for n in step["forward"]["nodes"] if n["kind"] == "param"]
    assert sorted(params) == ["W", "b"]
    assert ops.count("matmul") == 3          # forward, and both products of its backward
    assert "sub" in ops                      # the update W - lr * grad, in the same static graph


def test_uninitialized_variable_and_eager_variable_errors(graph_mode):
    v = tf.Variable(1.0)
    with tf.compat.v1.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError, match="uninitialized value Variable"):
            sess.run(v * 2.0)
        sess.run(v.initializer)
        assert sess.run(v.assign_add(2.0)) == 3.0
        assert sess.run(v) == 3.0
    assert tf.gradients(tf.constant(1.0) * 2.0, [v]) == [None]


TF1_CONTROL_FLOW = """import tensorflow as tf
x = tf.placeholder(tf.float32, shape=[None])
k = tf.constant(10.0)
y = tf.cond(tf.reduce_sum(x) > 0, lambda: x * 2.0 + k, lambda: -x)

def body(i, acc):
    return i + 1, acc + tf.cast(i, tf.float32) * k

n, total = tf.while_loop(lambda i, acc: i < 4, body, [tf.constant(0), tf.constant(0.0)])
print(y)
with tf.Session() as sess:
    print(sess.run(y, {x: [1.0, 2.0]}), sess.run(y, {x: [-1.0, -2.0, -3.0]}))
    print(sess.run(n), sess.run(total))
"""


def test_tf1_cond_and_while_loop_are_control_flow_ops(run):
    record = run(TF1_CONTROL_FLOW)
    assert record["ok"], record["error"]
    assert record["stdout"] == ('Tensor("cond:0", shape=(None,), dtype=float32)\n'
                                "[12. 14.] [1. 2. 3.]\n4 60.0\n")
    irs = [g["ir"] for g in record["graphs"] if g["capture"] == "session"]
    assert "cond(" in irs[0] and "then(" in irs[0] and "else(" in irs[0]
    assert any("while_loop(" in ir for ir in irs)


def test_tf1_branches_must_be_pure(graph_mode):
    v = tf.Variable(1.0)
    with pytest.raises(UnsupportedError, match="inside tf.cond"):
        tf.cond(tf.constant(True), lambda: v.assign(2.0), lambda: tf.constant(0.0))
    y = tf.cond(tf.constant(True), lambda: tf.random.normal([2]), lambda: tf.zeros([2]))
    with tf.compat.v1.Session() as sess:
        with pytest.raises(UnsupportedError, match="inside tf.cond"):
            sess.run(y)


def _tf1_quadratic_steps(make_optimizer, steps: int) -> list:
    """w starts at 5 and minimizes (w - 2)^2 with a TF1 optimizer; returns w after each step."""
    rec = record.Recorder()
    with record.use_recorder(rec):
        tf.compat.v1.disable_eager_execution()
        w = tf.Variable(5.0)
        train = make_optimizer().minimize(tf.square(w - 2.0))
        out = []
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            for _ in range(steps):
                sess.run(train)
                out.append(float(sess.run(w)))
    return out


def test_tf1_optimizers_by_hand():
    assert _tf1_quadratic_steps(lambda: tf.compat.v1.train.GradientDescentOptimizer(0.1), 2) == \
        pytest.approx([4.4, 3.92])
    # accum1 = 6, w = 4.4; accum2 = 0.9 * 6 + 4.8 = 10.2, w = 4.4 - 1.02 = 3.38
    assert _tf1_quadratic_steps(lambda: tf.compat.v1.train.MomentumOptimizer(0.1, 0.9), 2) == \
        pytest.approx([4.4, 3.38])
    lr, b1, b2, eps = 0.1, 0.9, 0.999, 1e-8
    w, m, v, expected = 5.0, 0.0, 0.0, []
    for t in (1, 2, 3):
        g = 2 * (w - 2.0)
        m, v = b1 * m + (1 - b1) * g, b2 * v + (1 - b2) * g * g
        w -= lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t) * m / (np.sqrt(v) + eps)
        expected.append(w)
    assert _tf1_quadratic_steps(lambda: tf.compat.v1.train.AdamOptimizer(lr), 3) == pytest.approx(expected, rel=1e-5)


def test_graph_and_eager_variables_read_tf_variables_arguments_alike(run):
    """One reading of tf.Variable's arguments serves both: a lazy initial value, trainable, None refused."""
    lazy = ("v = tf.Variable(lambda: tf.zeros([2]) + 3.0, trainable=False, name='v')\n"
            "print(v.name, v.trainable)\n"
            "try:\n    tf.Variable(None)\nexcept ValueError as e:\n    print(e)\n")
    eager = run("import tensorflow as tf\n" + lazy + "print(v.numpy())\n")
    graph = run("import tensorflow as tf\ntf.compat.v1.disable_eager_execution()\n" + lazy +
                "with tf.compat.v1.Session() as s:\n"
                "    s.run(tf.compat.v1.global_variables_initializer())\n    print(s.run(v))\n")
    assert eager["stdout"] == "v:0 False\ninitial_value must be specified.\n[3. 3.]\n"
    assert graph["stdout"] == eager["stdout"]
