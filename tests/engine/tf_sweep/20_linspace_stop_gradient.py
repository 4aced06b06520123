# tf.linspace (TensorFlow's formula: start + delta * i, the ends exact; integers give float64) and
# tf.stop_gradient (a tape sees a constant; so does a tf.function's backward).
import tensorflow as tf

print(tf.linspace(0.0, 1.0, 5))
print(tf.linspace(0, 10, 4))
print(tf.linspace(1.0, 2.0, 7).numpy().tolist())
print(tf.linspace(-3.0, 3.0, 13).numpy().tolist())
print(tf.linspace([0.0, 1.0], [1.0, 3.0], 3))
print(tf.linspace([0.0, 1.0], [1.0, 3.0], 3, axis=-1))
print(tf.linspace(0.0, 1.0, 1), tf.linspace(0.0, 1.0, 0))
print(tf.linspace(tf.constant(2.0, tf.float64), 3.0, 4))

x = tf.Variable(3.0)
with tf.GradientTape(persistent=True) as tape:
    y = x * tf.stop_gradient(x * x)
    z = tf.stop_gradient(x) * 2.0
print(y.numpy(), tape.gradient(y, x).numpy(), tape.gradient(z, x))
print(tf.stop_gradient(tf.constant([1, 2])))

w = tf.Variable([1.0, 2.0])


@tf.function
def loss_fn(v):
    target = tf.stop_gradient(v * 2.0)
    return tf.reduce_sum((v - target) ** 2)


with tf.GradientTape() as tape:
    loss = loss_fn(w)
print(loss.numpy(), tape.gradient(loss, w).numpy())

a, b = tf.Variable(1.0), tf.Variable(3.0)
with tf.GradientTape() as tape:
    y = tf.reduce_sum(tf.linspace(a, b, 5) ** 2)
print(y.numpy(), [g.numpy() for g in tape.gradient(y, [a, b])])
