# title: tf.function turns Python control flow into cond / while_loop
# title_zh: tf.function 把 Python 控制流变成 cond / while_loop
# concept: graph capture, tf.function, retracing
# A tensor-dependent `if` becomes tf.cond, a tensor-dependent `while` becomes tf.while_loop.
# Calling with a new input signature retraces; the Static tab lists each trace and why.
import tensorflow as tf


@tf.function
def clip_and_count(x):
    if tf.reduce_sum(x) > 0:
        y = x * 2.0
    else:
        y = -x
    n = tf.constant(0)
    while tf.reduce_max(y) > 1.0:
        y = y / 2.0
        n = n + 1
    return y, n


print(clip_and_count(tf.constant([1.0, 3.0])))
print(clip_and_count(tf.constant([-1.0, -3.0])))        # same signature: graph reused
print(clip_and_count(tf.constant([1.0, 2.0, 3.0])))     # new shape: retrace
