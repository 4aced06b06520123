# A `for` over tf.range with known bounds (or over a constant tensor) in a tf.function is a while loop, as
# AutoGraph makes it, not unrolled: its body is traced once (a print in it runs once), one While op in the
# GraphDef whatever the count; tf.range(num_steps) on a Python int traces per value (the guide's train).
# A Python range unrolls (the body traced per iteration). A TensorArray written at the counter.
import tensorflow as tf


def whiles(f, *args):
    ops = [n.op for n in f.get_concrete_function(*args).graph.as_graph_def().node]
    return ops.count("While") + ops.count("StatelessWhile")


@tf.function
def f(x):
    for i in tf.range(3):
        print("tracing the tf.range body")
        x += tf.cast(i, tf.float32)
    return x


print(f(tf.constant(1.0)), whiles(f, tf.constant(1.0)))


@tf.function
def g(x):
    for i in range(3):
        print("tracing the Python range body")
        x += i
    return x


print(g(tf.constant(1)), whiles(g, tf.constant(1)))


@tf.function
def h():
    s = tf.constant(0)
    for r in tf.constant([[1, 2], [3, 4], [5, 6]]):
        print("tracing the rows body")
        s += tf.reduce_sum(r * r)
    return s


print(h(), whiles(h))


def train_one_step():
    pass


@tf.function
def train(num_steps):
    print("Tracing with num_steps = ", num_steps)
    for _ in tf.range(num_steps):
        train_one_step()


train(num_steps=10)
train(num_steps=20)
print(whiles(train, 10), whiles(train, 20))


@tf.function
def squares(n):
    a = tf.TensorArray(tf.int32, size=n)
    for i in tf.range(n):
        a = a.write(i, i * i)
    return a.stack()


print(squares(4))
