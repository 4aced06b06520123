# tf.TensorArray: write by index, read, stack (unwritten elements are zeros), dynamic size, gather,
# concat, unstack; gradients through stack; inside a tf.function over a Python range.
import tensorflow as tf

ta = tf.TensorArray(tf.float32, size=3)
ta = ta.write(0, 1.0)
print(ta.size(), ta.stack(), ta.read(1))
for bad in (lambda: ta.write(5, 1.0), lambda: ta.read(7)):
    try:
        bad()
    except tf.errors.OutOfRangeError as e:
        print("OutOfRangeError:", e)

tb = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
tb = tb.write(0, [1, 2]).write(2, [5, 6])
print(tb.size(), tb.stack(), tb.read(1), tb.gather([2, 0]), tb.concat())
tc = tf.TensorArray(tf.float32, size=2).unstack(tf.constant([[1.0, 2.0], [3.0, 4.0]]))
print(tc.read(1), tc.dtype, tc.dynamic_size)
print(tf.TensorArray(tf.float32, size=0, dynamic_size=True).stack())
te = tf.TensorArray(tf.float32, size=2, element_shape=[3])
print(te.stack())
try:
    te.write(0, [1.0, 2.0])
except ValueError as e:
    print("ValueError:", e)

x = tf.Variable([1.0, 2.0])
with tf.GradientTape() as tape:
    tg = tf.TensorArray(tf.float32, size=2)
    tg = tg.write(0, x * 2.0).write(1, x * x)
    loss = tf.reduce_sum(tg.stack())
print(loss.numpy(), tape.gradient(loss, x))


@tf.function
def squares():
    arr = tf.TensorArray(tf.int32, size=4)
    for i in range(4):
        arr = arr.write(i, i * i)
    return arr.stack()


print(squares())


@tf.function
def running_sums(v):
    out = tf.TensorArray(tf.float32, size=3)
    total = tf.constant(0.0)
    for i in range(3):
        total = total + v[i]
        out = out.write(i, total)
    return out.stack()


print(running_sums(tf.constant([1.0, 2.0, 3.0])))
