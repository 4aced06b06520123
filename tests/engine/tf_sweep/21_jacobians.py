# GradientTape.jacobian and batch_jacobian: every element's gradient, stacked into target dims + source dims.
import tensorflow as tf

x = tf.constant([1.0, 2.0, 3.0])
with tf.GradientTape(persistent=True) as tape:
    tape.watch(x)
    y = x * x
    z = tf.reduce_sum(y)
    c = tf.constant([5.0, 6.0])
print(tape.jacobian(y, x))
print(tape.jacobian(z, x))
print(tape.jacobian(c, x))
print(tape.jacobian(c, x, unconnected_gradients=tf.UnconnectedGradients.ZERO))

w = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
b = tf.Variable([0.5, -0.5])
with tf.GradientTape() as tape:
    out = tf.matmul(w, w) * 0.1 + b * b * w
jw, jb = tape.jacobian(out, [w, b])
print(jw.shape, jb.shape)
print(jw)
print(jb)

xb = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
with tf.GradientTape(persistent=True) as tape:
    tape.watch(xb)
    yb = xb * xb * 2.0
    sb = tf.reduce_sum(xb, axis=1, keepdims=True) * 3.0
print(tape.batch_jacobian(yb, xb))
print(tape.batch_jacobian(sb, xb))

with tf.GradientTape() as tape:
    tape.watch(x)
    y = x * x
try:
    tape.jacobian(y, x)
    tape.jacobian(y, x)
except RuntimeError as e:
    print("RuntimeError:", e)
