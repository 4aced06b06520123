# String tensors (bytes, printed as TF prints them), complex tensors (values, no gradient), a
# SparseTensor and its dense form, tf.config's devices on a machine with one CPU, tf.device.
import numpy as np
import tensorflow as tf

s = tf.constant("Hello, TensorFlow!")
print(s, s.dtype, s.shape, s.numpy())
words = tf.constant(["Gray wolf", "Quick brown fox", "Lazy dog"])
print(words, words.numpy())
print(tf.constant("🥳👍"), tf.constant(b"raw"), tf.constant(np.array(["a", "bc"])))
alphabet = tf.constant(list("abcdefghijklmnopqrstuvwxyz"))
print(tf.gather(alphabet, [2, 0, 19, 18]), alphabet[::-5], tf.reshape(alphabet[:4], [2, 2]))
print(words == tf.constant(["Gray wolf", "x", "Lazy dog"]), tf.concat([words, ["more"]], 0))
print(tf.constant("x", dtype=tf.string), tf.as_dtype(np.bytes_), tf.string, tf.string == "string")
v = tf.Variable(["a", "b"])
print(v.dtype, v.numpy())

c = tf.constant([5 + 4j, 6 + 1j])
print(c, c.dtype, tf.complex64)
print(c * c + c, tf.matmul(tf.reshape(c, [1, 2]), tf.reshape(c, [2, 1])))
z = tf.Variable([5 + 4j, 6 + 1j])
print(z.dtype, z.numpy(), tf.constant([1.0, 2.0], dtype=tf.complex64))
w = tf.Variable(1.0)
with tf.GradientTape() as tape:
    y = w * 2.0
    zz = z * z
print(tape.gradient(y, w), sorted(v.dtype.name for v in tape.watched_variables()))

sp = tf.SparseTensor(indices=[[0, 2], [2, 1], [3, 3]], values=[2, 11, 18], dense_shape=[4, 5])
print(sp)
print(sp.shape, sp.dtype, tf.sparse.to_dense(sp))
sp2 = tf.sparse.SparseTensor(indices=[[0, 0], [1, 2]], values=[1.5, 2.0], dense_shape=[3, 4])
print(tf.sparse.to_dense(sp2, default_value=-1.0))

print(tf.config.list_physical_devices("GPU"), tf.config.list_physical_devices("CPU"))
print(tf.config.list_physical_devices(), tf.config.list_logical_devices(), tf.config.get_visible_devices())
print(tf.config.experimental.enable_op_determinism())
tf.config.set_visible_devices([], "GPU")
print(tf.config.functions_run_eagerly())
with tf.device("CPU:0"):
    a = tf.constant([[1.0, 2.0]])
with tf.device("GPU:0"):
    k = a * 3.0
with tf.device("/job:localhost/replica:0/task:0/device:CPU:0"):
    print(k, k.device)
