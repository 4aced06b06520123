# TF1: tf.placeholder("float") is float32, as in TensorFlow ("double" float64, "half" float16).
import tensorflow as tf

tf.compat.v1.disable_eager_execution()
x = tf.compat.v1.placeholder("float", [None, 2])
w = tf.Variable([[0.5], [-1.0]], dtype="float")
y = tf.matmul(x, w)
print(x, w.dtype, y)
print(tf.compat.v1.placeholder("double"), tf.compat.v1.placeholder("half", [3]))
with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    print(sess.run(y, feed_dict={x: [[1.0, 2.0], [3.0, 4.0]]}))
print(tf.as_dtype("float"), tf.as_dtype("double"))
try:
    tf.as_dtype("int")
except TypeError as e:
    print("TypeError:", e)
