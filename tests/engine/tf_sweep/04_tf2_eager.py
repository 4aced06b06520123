# title: TensorFlow 2.x eager execution
# title_zh: TensorFlow 2.x 的即时执行
# concept: dynamic graph, eager
# The same addition, computed immediately: no Session, .numpy() gives the value.
import tensorflow as tf

a = tf.constant(2)
b = tf.constant(3)
c = tf.add(a, b)
print(c.numpy())  # 5

x = tf.Variable([1.0, 2.0])
with tf.GradientTape() as tape:
    y = tf.reduce_sum(x * x)
print(tape.gradient(y, x).numpy())  # [2. 4.]
