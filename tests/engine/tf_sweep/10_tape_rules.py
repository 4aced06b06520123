# GradientTape: a polynomial's gradient, watching a constant, persistent and nested tapes, unconnected sources.
import tensorflow as tf

x = tf.Variable(3.0)
with tf.GradientTape() as tape:
    y = x * x + 2.0 * x + 1.0
print(y.numpy(), tape.gradient(y, x).numpy())

c = tf.constant(3.0)
d = tf.constant(2.0)
with tf.GradientTape(persistent=True) as tape:
    tape.watch(c)
    z = c * c * d
print(tape.gradient(z, c).numpy(), tape.gradient(z, d))
print(tape.gradient(z, d, unconnected_gradients=tf.UnconnectedGradients.ZERO).numpy())
del tape

v = tf.Variable(2.0)
with tf.GradientTape() as outer:
    with tf.GradientTape() as inner:
        w = v * v * v
    dw = inner.gradient(w, v)
print(dw.numpy(), outer.gradient(dw, v).numpy())

a = tf.Variable([1.0, -2.0, 0.5])
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(tf.nn.relu(a) * tf.tanh(a)) + tf.reduce_mean(tf.square(a))
print(loss.numpy(), tape.gradient(loss, a).numpy())
