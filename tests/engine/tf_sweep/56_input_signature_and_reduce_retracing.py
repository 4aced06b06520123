# How often a tf.function traces, as the tf.function guide shows it: an input_signature with an unknown
# dimension traces once (its print shows shape (None,)), reduce_retracing traces the exact shape, then one
# generalized trace for every later length; without either, each new shape traces. (Dagscope's graphs have
# fixed shapes, so it makes a graph per shape, but traces quietly where TensorFlow would not trace.)
import tensorflow as tf


@tf.function(input_signature=(tf.TensorSpec(shape=[None], dtype=tf.int32),))
def next_collatz(x):
    print("Tracing with", x)
    return tf.where(x % 2 == 0, x // 2, 3 * x + 1)


print(next_collatz(tf.constant([1, 2])))
print(next_collatz(tf.constant([5, 6, 7])))


@tf.function(reduce_retracing=True)
def g(x):
    print('Tracing with', x)
    return x * 2


print(g(tf.constant([1, 2, 3])))
print(g(tf.constant([1, 2, 3, 4, 5])))
print(g(tf.constant([1, 2, 3, 4, 5, 6, 7])))
print(g(tf.constant([[1, 2], [3, 4]])))
print(g(tf.constant([[1, 2, 3], [3, 4, 5]])))
print(g(tf.constant([1.0, 2.0])))


@tf.function
def h(x, n):
    print('Tracing with', x, n)
    return x + n


print(h(tf.constant([1, 2]), 1))
print(h(tf.constant([1, 2, 3]), 1))
print(h(tf.constant([4, 5]), 1))
print(h(tf.constant([4, 5]), 2))


@tf.function(input_signature=(tf.TensorSpec(shape=[None, 2], dtype=tf.float32), tf.TensorSpec(shape=[], dtype=tf.float32)))
def scale(m, s):
    print('Tracing with', m, s)
    return tf.reduce_sum(m * s, axis=1)


print(scale(tf.ones([3, 2]), tf.constant(2.0)))
print(scale(tf.ones([1, 2]), tf.constant(3.0)))
