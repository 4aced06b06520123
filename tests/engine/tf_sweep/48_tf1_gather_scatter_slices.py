# tf.gather / gather_nd / scatter_nd / slice and a negative-step slice in a TF1 graph: fed by placeholders,
# differentiated by tf.gradients, run by a Session.
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
x = tf.placeholder(tf.float32, [None, 3])
i = tf.placeholder(tf.int32, [2])
w = tf.Variable([[1.0, 2.0, 3.0]])
y = tf.reduce_sum(tf.gather(x * w, i) ** 2) + tf.reduce_sum(tf.gather_nd(x, [[0, 1]])) + tf.reduce_sum(x[::-1, ::2])
g = tf.gradients(y, [w])[0]
s = tf.scatter_nd([[1], [0]], tf.slice(x[0], [0], [2]), [3])
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    print(sess.run([y, g, s], {x: [[1, 2, 3], [4, 5, 6]], i: [1, 1]}))
