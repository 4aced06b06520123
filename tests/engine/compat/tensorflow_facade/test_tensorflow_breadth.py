"""TensorFlow names real programs use (issue 15): what the sweep programs 20-23 cannot show by their
printed numbers alone — the graphs they build, the errors they give, the TF1 gradient of
tf.stop_gradient. (Their numbers are TF 2.21's: tests/engine/tf_sweep/2x_*.out.)"""
import numpy as np
import pytest

import engine.compat.tensorflow as tf
from engine.errors import UnsupportedError
from engine.ir.graph import WHILE
from engine.passes import run_pipeline
from tests.engine.conftest import run_real_tensorflow


def node_kinds(graph) -> list:
    return [n.kind for n in graph.nodes]


def test_for_over_tf_range_with_a_tensor_bound_is_one_while_loop():
    @tf.function
    def total(n):
        s = tf.constant(0)
        for i in tf.range(n):
            s += i
        return s

    graph = total.get_concrete_function(tf.constant(3)).graph
    assert node_kinds(graph).count(WHILE) == 1                 # not unrolled: n is known only at run time
    assert [int(total(tf.constant(n))) for n in (0, 1, 4, -2)] == [0, 0, 6, 0]
    assert total.experimental_get_tracing_count() == 1


def test_gradients_flow_through_a_tf_range_loop_to_variables_read_and_passed():
    w = tf.Variable(2.0)

    @tf.function
    def power(n):
        y = tf.constant(1.0)
        for i in tf.range(n):
            y = y * w
        return y

    @tf.function
    def grow(x, n):                                   # x: a tf.Variable argument, carried by the loop
        for i in tf.range(n):
            x = x + tf.cast(i, tf.float32) * x
        return x

    with tf.GradientTape() as tape:
        y = power(tf.constant(3))
    assert float(y) == 8.0 and float(tape.gradient(y, w)) == 12.0          # 3 w^2
    x = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        out = tf.reduce_sum(grow(x, tf.constant(3)))
    assert float(out) == 18.0 and tape.gradient(out, x).numpy().tolist() == [6.0, 6.0]   # TF 2.21's numbers


def test_loop_over_a_constant_tf_range_is_a_while_loop_unless_it_writes_a_tensor_array():
    @tf.function
    def f(x):
        for i in tf.range(3):
            x = x + tf.cast(i, tf.float32)
        return x

    @tf.function
    def g(x):                      # (Dagscope's loops cannot carry a TensorArray: this one unrolls)
        a = tf.TensorArray(tf.float32, size=3)
        for i in tf.range(3):
            x = x + tf.cast(i, tf.float32)
            a = a.write(i, x)
        return a.stack()

    assert node_kinds(f.get_concrete_function(tf.constant(1.0)).graph).count(WHILE) == 1   # as AutoGraph's
    assert float(f(tf.constant(1.0))) == 4.0
    assert WHILE not in node_kinds(g.get_concrete_function(tf.constant(1.0)).graph)
    assert g(tf.constant(1.0)).numpy().tolist() == [1.0, 2.0, 4.0]


def test_python_int_carried_by_a_tf_range_loop_stays_int32():
    @tf.function
    def f(n):
        s = 0
        for i in tf.range(n):
            s = s + i
        return s

    out = f(tf.constant(4))
    assert out.dtype == tf.int32 and int(out) == 6


def test_a_tensor_bound_range_used_as_a_tensor_is_refused_clearly():
    @tf.function
    def f(n):
        return tf.reduce_sum(tf.range(n))

    with pytest.raises(UnsupportedError, match=r"supported as the loop of `for i in tf.range\(n\):` only"):
        f(tf.constant(3))

    @tf.function
    def g(n, k):
        for i in tf.range(0, n, k):
            n = n + 0
        return n

    with pytest.raises(UnsupportedError, match="step computed inside the tf.function"):
        g(tf.constant(3), tf.constant(1))


def test_stop_gradient_in_a_tf1_graph():
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(3.0)
        only_through_stop = tf.stop_gradient(x) * 2.0
        both = x * tf.stop_gradient(x)
        grads = tf.gradients([only_through_stop], [x]), tf.gradients([both], [x])
        with tf.compat.v1.Session(graph=g) as sess:
            assert grads[0] == [None]
            assert sess.run(grads[1][0]) == 3.0


def test_stop_gradient_is_a_node_of_a_traced_graph():
    @tf.function
    def f(x):
        return x * tf.stop_gradient(x)

    graph = f.get_concrete_function(tf.constant(2.0)).graph
    assert "stop_gradient" in [n.op for n in graph.nodes if n.kind == "call"]
    x = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = f(x)
    assert float(tape.gradient(y, x)) == 2.0


def test_a_tf_function_calling_another_reads_its_variables():
    scale = tf.Variable(3.0)

    @tf.function
    def inner(x):
        return x * scale

    @tf.function
    def outer(x, y):
        return inner(x) + inner(y)

    assert float(outer(tf.constant(1.0), tf.constant(2.0))) == 9.0
    scale.assign(2.0)
    assert float(outer(tf.constant(1.0), tf.constant(2.0))) == 6.0    # read afresh at every call
    assert float(inner(tf.constant(5.0))) == 10.0                      # and on its own, eagerly called


def test_a_tf_function_may_return_none_inside_a_structure():
    @tf.function
    def f(x):
        return {"y": x + 1.0, "nothing": None}, None

    out, nothing = f(tf.constant(1.0))
    assert nothing is None and out["nothing"] is None and float(out["y"]) == 2.0


def test_jacobian_records_one_backward_and_a_non_persistent_tape_gives_one(run):
    record = run("""import tensorflow as tf
x = tf.constant([1.0, 2.0, 3.0])
with tf.GradientTape() as tape:
    tape.watch(x)
    y = x * x
print(tape.jacobian(y, x).numpy().tolist())
""")
    assert record["ok"], record["error"]
    assert record["stdout"] == "[[2.0, 0.0, 0.0], [0.0, 4.0, 0.0], [0.0, 0.0, 6.0]]\n"
    titles = [g["title"] for g in record["graphs"] if g["kind"] == "dynamic"]
    assert titles == ["y: tape.jacobian() (row 1 of 3) #1"]          # one of the three backwards is drawn


def test_batch_jacobian_needs_matching_batch_dims():
    x = tf.constant([[1.0, 2.0]])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reshape(x, [2, 1])
    with pytest.raises(ValueError, match="Need first dimension of target shape"):
        tape.batch_jacobian(y, x)


def test_linspace_gradient_by_finite_differences():
    a, b, n = 1.0, 3.0, 5
    start, stop = tf.Variable(a, dtype=tf.float64), tf.Variable(b, dtype=tf.float64)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.sin(tf.linspace(start, stop, n)))
    grads = [float(g) for g in tape.gradient(y, [start, stop])]

    def value(a, b):
        return np.sin(np.linspace(a, b, n)).sum()
    eps = 1e-6
    numeric = [(value(a + eps, b) - value(a - eps, b)) / (2 * eps), (value(a, b + eps) - value(a, b - eps)) / (2 * eps)]
    np.testing.assert_allclose(grads, numeric, rtol=1e-6)


def test_linspace_refuses_a_negative_count():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Requires num >= 0"):
        tf.linspace(0.0, 1.0, -1)


TF_PRINT_PROGRAM = """import tensorflow as tf

@tf.function
def loop_print(n):
    for i in tf.range(n):
        tf.print("step", i)
    return n

@tf.function
def while_print(x):
    while x < 10:
        tf.print("x =", x)
        x = x * 2
    return x

@tf.function
def cond_print(x):
    if x > 0:
        tf.print("positive", x)
    else:
        tf.print("not positive", x)
    return x

loop_print(tf.constant(3))
print(int(while_print(tf.constant(1))))
cond_print(tf.constant(2.0))
cond_print(tf.constant(-1.0))
loop_print(tf.constant(1))                  # the same graph again: prints as many times as it loops
print(loop_print.experimental_get_tracing_count())
"""
# What TensorFlow 2.21 printed for it: tf.print's lines on stderr (from its C++ kernel, past Python's
# sys.stderr: test_the_stored_tf_print_text_is_tensorflows reads them from a child's file descriptor)
TF_PRINTED_STDOUT = "16\n1\n"
TF_PRINTED_STDERR = "step 0\nstep 1\nstep 2\nx = 1\nx = 2\nx = 4\nx = 8\npositive 2\nnot positive -1\nstep 0\n"


def test_tf_print_in_loops_and_branches_prints_at_every_step(run):
    record = run(TF_PRINT_PROGRAM)
    assert record["ok"], record["error"]
    assert (record["stdout"], record["stderr"]) == (TF_PRINTED_STDOUT, TF_PRINTED_STDERR)


@pytest.mark.oracle
def test_the_stored_tf_print_text_is_tensorflows():
    assert run_real_tensorflow(TF_PRINT_PROGRAM) == (TF_PRINTED_STDOUT, TF_PRINTED_STDERR)


def test_tf_print_is_a_node_and_recording_the_graph_prints_nothing(run):
    record = run("""import tensorflow as tf
import sys
@tf.function
def f(n):
    s = 0
    for i in tf.range(n):
        tf.print("i", i, output_stream=sys.stdout)
        s = s + i
    return s
print(f(tf.constant(2)))
""")
    assert record["ok"], record["error"]
    assert record["stdout"] == "i 0\ni 1\ntf.Tensor(1, shape=(), dtype=int32)\n"
    (graph,) = [g for g in record["graphs"] if g["capture"] == "function"]
    assert "print(" in graph["ir"] and "while_loop(" in graph["ir"]



def test_the_passes_keep_a_print_node_nobody_reads():
    @tf.function
    def f(n):
        for i in tf.range(n):
            tf.print("constant text", 1.5)          # no input from the loop: still printed at every step
        return n

    def prints(graph) -> int:
        return sum((n.op == "print") + sum(prints(s) for s in n.subgraphs.values()) for n in graph.nodes)
    graph = f.get_concrete_function(tf.constant(2)).graph
    assert prints(graph) == 1 and prints(run_pipeline(graph).graph) == 1


def test_a_tensor_array_carried_by_a_tensor_bound_loop_is_refused_clearly():
    @tf.function
    def f(n):
        ta = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
        for i in tf.range(n):
            ta = ta.write(i, i)
        return ta.stack()

    with pytest.raises(UnsupportedError, match="loop variable 'ta' is a TensorArray"):
        f(tf.constant(3))


def test_tensor_array_write_of_another_dtype_is_refused():
    ta = tf.TensorArray(tf.float32, size=1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="TensorArray dtype is float32 but Op is trying to "
                                                             "write dtype int32"):
        ta.write(0, tf.constant(1))


def test_dataset_shuffle_is_a_seeded_permutation_and_reshuffles_each_epoch():
    ds = tf.data.Dataset.range(20).shuffle(20, seed=3)
    first, second = list(ds.as_numpy_iterator()), list(ds.as_numpy_iterator())
    assert sorted(first) == sorted(second) == list(range(20)) and first != second
    fixed = tf.data.Dataset.range(20).shuffle(20, seed=3, reshuffle_each_iteration=False)
    assert list(fixed.as_numpy_iterator()) == list(fixed.as_numpy_iterator())


@pytest.mark.parametrize("pipeline", [
    lambda ds: ds.batch(8), lambda ds: ds.batch(8, drop_remainder=True), lambda ds: ds.shuffle(100, seed=1).batch(8),
    lambda ds: ds.shuffle(10, seed=2).batch(5), lambda ds: ds.shuffle(10, seed=4, reshuffle_each_iteration=False).batch(5),
    lambda ds: ds.repeat(3).shuffle(20, seed=5).batch(16), lambda ds: ds.shuffle(9, seed=6).repeat(2).batch(7),
    lambda ds: ds.repeat().shuffle(30, seed=7).batch(10).take(12)])
@pytest.mark.parametrize("structure", ["tuple", "dict", "nested", "one"])
def test_batches_of_slices_are_the_stacked_elements(pipeline, structure):
    """batch() over from_tensor_slices (and shuffle, repeat) gathers rows at once; a map in between keeps
    the element-by-element path: both give the same batches, bits, dtypes and order, epoch after epoch."""
    x = np.random.RandomState(0).rand(53, 4, 3).astype("float32")
    y = np.arange(53) % 7
    slices = {"tuple": (x, y), "dict": {"b": y, "a": x}, "nested": (x, (y, y * 2)), "one": y}[structure]

    def epochs(ds):
        flat = [[np.asarray(t) for t in tf.nest.flatten(batch)] for _ in range(2) for batch in ds]
        return [[(a.dtype, a.shape, a.tobytes()) for a in batch] for batch in flat]
    rows = pipeline(tf.data.Dataset.from_tensor_slices(slices))
    assert rows._kind in ("_BatchDataset", "_TakeDataset")
    elements = pipeline(tf.data.Dataset.from_tensor_slices(slices).map(lambda *e: e[0] if len(e) == 1 else e))
    assert epochs(rows) == epochs(elements)


def test_dataset_errors():
    with pytest.raises(ValueError, match="Dimensions 3 and 2 are not compatible"):
        tf.data.Dataset.from_tensor_slices(([1, 2, 3], [1, 2]))
    with pytest.raises(ValueError, match="must return a `tf.bool` scalar"):
        list(tf.data.Dataset.range(3).filter(lambda x: x * 2))
    with pytest.raises(UnsupportedError, match=r"Dataset.cache\(filename\)"):
        tf.data.Dataset.range(3).cache("/tmp/x")
    with pytest.raises(UnsupportedError, match="tf.data.from_generator is not supported"):
        tf.data.from_generator


def test_indexing_with_a_loop_index_is_an_index_node_and_other_tensor_keys_are_refused():
    @tf.function
    def row_sum(x, n):
        total = tf.zeros([2])
        for i in tf.range(n):
            total = total + x[i]
        return total

    graph = row_sum.get_concrete_function(tf.ones([3, 2]), tf.constant(3)).graph
    body = next(n for n in graph.nodes if n.kind == WHILE).subgraphs["body"]
    assert "index" in [n.op for n in body.nodes]
    assert tf.constant([1, 2, 3])[tf.constant(2)].numpy() == 3          # a known index is just a number
    with pytest.raises(UnsupportedError, match="a scalar integer tensor is; use tf.gather"):
        tf.constant([1, 2, 3])[tf.constant([0, 1])]
    with pytest.raises(UnsupportedError, match="float32 tensor of shape"):
        tf.constant([1, 2, 3])[tf.constant(1.0)]


def test_tf2_initializers_are_not_offered_as_tf1s():
    """tf.compat.v1's initializers take TF1's arguments (random_normal_initializer(stddev=1.0, dtype=...)):
    falling back to TF2's would give other numbers, so they are refused by name."""
    assert tf.random_normal_initializer(seed=1)((2,)).shape == [2]
    for name in ("random_normal_initializer", "zeros_initializer", "constant_initializer"):
        with pytest.raises(UnsupportedError, match=f"tf.compat.v1.{name} is not supported"):
            getattr(tf.compat.v1, name)


def test_seeded_tf_initializers_refuse_what_they_cannot_reproduce():
    with pytest.raises(UnsupportedError, match="float32 only"):
        tf.random_normal_initializer(seed=3)((2,), dtype=tf.float64)
    assert tf.random_normal_initializer()((3,), dtype=tf.float64).dtype == tf.float64     # unseeded: any float
    with pytest.raises(TypeError, match="has 3 elements"):
        tf.constant_initializer([1.0, 2.0, 3.0])((2, 2))


def test_a_slice_of_a_variable_assigns_into_it_eagerly_only():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    v[1, :].assign([5.0, 6.0])
    assert v.numpy().tolist() == [[1.0, 2.0], [5.0, 6.0]]
    with pytest.raises(ValueError, match="slice of shape"):
        v[0].assign([1.0, 2.0, 3.0])

    @tf.function
    def read(w):
        return w[0, 0] * 2.0
    assert float(read(v)) == 2.0


def test_a_dataset_loop_that_writes_a_tensor_array_unrolls_and_serves_that_dataset_only():
    # (Dagscope's loops cannot carry a TensorArray: the loop is unrolled over the elements seen while
    # tracing, so another dataset of the same element_spec traces again; TensorFlow's numbers)
    data = tf.data.Dataset.from_tensor_slices(tf.constant([1., 2., 3.]))

    @tf.function
    def collect(dataset):
        ta = tf.TensorArray(tf.float32, size=3)
        i = 0
        for x in dataset:
            ta = ta.write(i, x * 2)
            i += 1
        return ta.stack()

    assert collect(data).numpy().tolist() == [2.0, 4.0, 6.0]
    assert collect(tf.data.Dataset.from_tensor_slices(tf.constant([5., 6., 7.]))).numpy().tolist() == [10., 12., 14.]
    assert collect.experimental_get_tracing_count() == 2


def test_a_dataset_element_of_another_shape_than_the_traced_one_is_refused_by_name():
    # (Dagscope's graphs have fixed shapes: a last, smaller batch cannot run through a loop traced for the first)
    @tf.function
    def total(dataset):
        s = tf.constant(0.)
        for x in dataset:
            s += tf.reduce_sum(x)
        return s

    assert float(total(tf.data.Dataset.from_tensor_slices(tf.ones([4, 3])).batch(2))) == 12.0
    with pytest.raises(ValueError, match=r"float32\[1, 3\] reached a loop compiled for float32\[2, 3\].*drop_remainder"):
        total(tf.data.Dataset.from_tensor_slices(tf.ones([5, 3])).batch(2))


def test_a_py_function_that_raises_inside_a_graph_raises_at_the_call():
    def fails(x):
        raise RuntimeError("from the program's function")

    @tf.function
    def f(x):
        return tf.py_function(fails, [x], Tout=tf.float32) + 1

    with pytest.raises(RuntimeError, match="from the program's function"):
        f(tf.constant(1.0))
