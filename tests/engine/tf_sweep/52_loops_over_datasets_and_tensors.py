# A `for` loop inside a tf.function over a tf.data.Dataset or a tensor computed in the function is one
# loop op, as AutoGraph makes it: its body is traced once, whatever the number of elements (a Dataset by
# its element_spec, so another dataset of the same spec reuses the trace), and the graph's size does not
# grow with the data (the tf.function guide's measure_graph_size). A loop over a Python list unrolls. The
# GraphDef's nodes for a dataset loop (ScanDataset, ReduceDataset), a while loop, tf.print, tf.py_function.
import tensorflow as tf


def measure_graph_size(f, *args):
    g = f.get_concrete_function(*args).graph
    print("{}({}) contains {} nodes in its graph".format(
        f.__name__, ', '.join(map(str, args)), len(g.as_graph_def().node)))


@tf.function
def train(dataset):
    loss = tf.constant(0)
    for x, y in dataset:
        loss += tf.abs(y - x)
    return loss


small_data = [(1, 1)] * 3
big_data = [(1, 1)] * 10
measure_graph_size(train, small_data)
measure_graph_size(train, big_data)
measure_graph_size(train, tf.data.Dataset.from_generator(lambda: small_data, (tf.int32, tf.int32)))
measure_graph_size(train, tf.data.Dataset.from_generator(lambda: big_data, (tf.int32, tf.int32)))
print(train(tf.data.Dataset.from_generator(lambda: [(1, 2), (3, 5), (4, 4)], (tf.int32, tf.int32))))
print(train(tf.data.Dataset.from_generator(lambda: [(1, 9)], (tf.int32, tf.int32))))
print(train.experimental_get_tracing_count())


@tf.function
def total(dataset):
    print("Tracing total")
    s = tf.constant(0.)
    n = tf.constant(0)
    for x, y in dataset:
        s += tf.reduce_sum(x * y)
        n += 1
    return s, n


a = tf.data.Dataset.from_tensor_slices((tf.reshape(tf.range(12.), [4, 3]), tf.ones([4, 3]) * 2))
b = tf.data.Dataset.from_tensor_slices((tf.reshape(tf.range(6.), [2, 3]), tf.ones([2, 3])))
print(total(a))
print(total(b))
print(total(a.batch(2, drop_remainder=True)))
print(total.experimental_get_tracing_count())
print([(n.name, n.op, list(n.input)) for n in total.get_concrete_function(a).graph.as_graph_def().node])

words = tf.data.Dataset.from_tensor_slices({"a": [1., 2., 3.], "b": [10., 20., 30.]})


@tf.function
def dicts():
    acc = tf.constant(0.)
    for e in words:
        acc = acc * 10 + e["a"] + e["b"]
    return acc


print(dicts(), dicts())


@tf.function
def rows(x):
    s = tf.zeros([2])
    k = tf.constant(0.)
    for r in x * 2:
        s += r
        k += tf.reduce_max(r)
    return s, k


print(rows(tf.reshape(tf.range(8.), [4, 2])))
print(len(rows.get_concrete_function(tf.ones([4, 2])).graph.as_graph_def().node),
      len(rows.get_concrete_function(tf.ones([40, 2])).graph.as_graph_def().node))


def show(f, *args):
    print([(n.name, n.op, list(n.input)) for n in f.get_concrete_function(*args).graph.as_graph_def().node])


@tf.function
def printed(x):
    tf.print(x)
    return x + 1


@tf.function
def countdown(x):
    while x > 0:
        tf.print(x)
        x -= 1
    return x


@tf.function
def halve(x):
    while x > 1:
        x //= 2
    return x


@tf.function
def via_python(x):
    return tf.py_function(lambda a: a * 2, [x], Tout=tf.int32)


show(countdown, tf.constant(3))
show(halve, tf.constant(3))
show(via_python, tf.constant(3))
print(countdown(tf.constant(3)), halve(tf.constant(9)), via_python(tf.constant(4)))
