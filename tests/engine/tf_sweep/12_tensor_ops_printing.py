# Eager tensors printed, reductions, matmul, broadcasting, casting and a softmax cross-entropy.
import tensorflow as tf

a = tf.constant([[1.0, 2.0], [3.0, 4.0]])
b = tf.constant([10, 20])
print(a)
print(b, b.dtype, a.shape)
print(tf.matmul(a, a).numpy(), tf.reduce_sum(a).numpy(), tf.reduce_mean(a, axis=0).numpy())
print((a * 2 + 1).numpy(), tf.cast(b, tf.float32).numpy() / 4)
print(tf.nn.softmax(tf.constant([1.0, 2.0, 3.0])).numpy())
labels = tf.constant([[0.0, 1.0, 0.0]])
logits = tf.constant([[2.0, 1.0, 0.1]])
print(tf.nn.softmax_cross_entropy_with_logits(labels, logits).numpy())
print(tf.reduce_max(a).numpy(), tf.argmax(a, axis=1).numpy(), tf.transpose(a).numpy())
