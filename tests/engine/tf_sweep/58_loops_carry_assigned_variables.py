# A tf.function's loop over a Dataset, tf.range or a while on a tensor whose body assigns tf.Variables:
# the loop carries the variables' values, as TensorFlow's while loop carries its resources' updates,
# one trace for every dataset of the same element_spec; nested loops too.
import tensorflow as tf

w = tf.Variable(0.)
data = tf.data.Dataset.from_tensor_slices(tf.constant([1., 2., 3.]))


@tf.function
def acc(dataset):
    print("tracing acc")
    for x in dataset:
        w.assign_add(x)
    return w.read_value()


print(acc(data))
print(acc(data))
print(acc(tf.data.Dataset.from_tensor_slices(tf.constant([10., 20.]))))
print(w.numpy())

v = tf.Variable(1)


@tf.function
def collatz(x):
    n = tf.constant(0)
    v.assign(x)
    while v > 1:
        if v % 2 == 0:
            n += 1
        v.assign(tf.where(v % 2 == 0, v // 2, 3 * v + 1))
    return n


print(collatz(tf.constant(27)), v.numpy())

c = tf.Variable(0)
d = tf.Variable(0)


@tf.function
def nested(n):
    for i in tf.range(n):
        c.assign_add(1)
        for j in tf.range(i):
            d.assign_add(j)
    return c.read_value(), d.read_value()


print(nested(tf.constant(4)))
print(nested(tf.constant(3)))
print(c.numpy(), d.numpy())
