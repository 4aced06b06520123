# tf.function: `for i in tf.range(n)` with a tensor bound (AutoGraph's while loop), a tf.function calling
# another, a function that returns None, and input_signature refusing what it cannot bind.
import tensorflow as tf


@tf.function
def total(n):
    s = tf.constant(0)
    for i in tf.range(n):
        s += i
    return s


print(total(tf.constant(5)))
print(total(tf.constant(7)), total.experimental_get_tracing_count())


@tf.function
def weighted(x, n):
    acc = 0.0
    for i in tf.range(1, n, 2):
        acc = acc + x * tf.cast(i, tf.float32)
    return acc


print(weighted(tf.constant(2.0), tf.constant(6)))


@tf.function
def countdown(n):
    steps = 0
    for i in tf.range(n, 0, -1):
        steps = steps + i
    return steps


print(countdown(tf.constant(4)))


@tf.function
def fixed():
    acc = tf.constant([0.0, 0.0])
    for i in tf.range(3):
        acc = acc + tf.cast(i, tf.float32)
    return acc


print(fixed())


@tf.function
def square(x):
    return x * x


@tf.function
def sum_of_squares(x, y):
    return square(x) + square(y)


print(sum_of_squares(tf.constant(2.0), tf.constant(3.0)))
print(sum_of_squares(tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])))

v = tf.Variable(1.0)


@tf.function
def bump():
    v.assign_add(1.0)


print(bump(), v.numpy())
print(bump(), v.numpy())


@tf.function
def nothing(x):
    x + 1


print(nothing(tf.constant(1.0)))


@tf.function(input_signature=[tf.TensorSpec(shape=[None], dtype=tf.float32)])
def double(x):
    return x * 2


print(double(tf.constant([1.0, 2.0])), double([3, 4]))
for bad in (tf.constant([1, 2]), tf.constant([[1.0]]), 3.0):
    try:
        double(bad)
    except TypeError as e:
        print("TypeError:", e)
