# TF1's argument names on the reductions (tf.compat.v1): reduction_indices= for axis=, keep_dims= for
# keepdims=, dimension= for argmax's axis=, in a graph run by a Session; both spellings at once is an
# error.
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()

x = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
p = tf.placeholder(tf.float32, [None, 3])
fetches = [tf.reduce_sum(x, reduction_indices=1),
           tf.reduce_mean(x, reduction_indices=[0], keep_dims=True),
           tf.reduce_max(x, reduction_indices=0, keepdims=True), tf.reduce_min(x, keep_dims=False),
           tf.reduce_logsumexp(x, reduction_indices=1),
           tf.argmax(x, dimension=1), tf.argmin(x, 0),
           tf.reduce_sum(p * p, reduction_indices=1, keep_dims=True),
           tf.reduce_mean(-tf.reduce_sum(p, reduction_indices=[1]))]
for call in (lambda: tf.reduce_sum(x, axis=0, reduction_indices=0),
             lambda: tf.reduce_mean(x, keepdims=True, keep_dims=True),
             lambda: tf.argmax(x, axis=0, dimension=0)):
    try:
        call()
    except ValueError as e:
        print("ValueError:", e)

with tf.Session() as sess:
    for value in sess.run(fetches, feed_dict={p: [[1.0, 2.0, 2.0], [0.5, 0.5, 0.0]]}):
        print(value.shape, value.dtype, value.tolist())
