# tf.image.adjust_contrast (TF has no gradient for it: tape.gradient raises LookupError), a tape's
# gradient of a variable with respect to itself, and what type an eager tf.Variable is.
import tensorflow as tf

x = tf.reshape(tf.range(24, dtype=tf.float32), [2, 2, 2, 3])
print(tf.image.adjust_contrast(x, 2.0))
print(tf.image.adjust_contrast(tf.constant([[[0.5, 0.0, 0.0]]]), 0.1))
print(tf.image.adjust_contrast(tf.constant([[[0.25], [1.0]], [[0.0], [0.5]]], tf.float64), -0.5))
image = tf.Variable([[[0.5, 0.0, 0.0]]])
delta = tf.Variable(0.1)
for sources in ([image, delta], image, delta):
    with tf.GradientTape() as tape:
        new_image = tf.image.adjust_contrast(image, delta)
    try:
        print(tape.gradient(new_image, sources))
    except LookupError as e:
        print(f"{type(e).__name__}: {e}")

v0, v1 = tf.Variable(2.0), tf.Variable([1.0, 2.0])
with tf.GradientTape(persistent=True) as tape:
    result = v0
    y = v1 * 3.0
print(tape.gradient(result, [v0, v1]), tape.gradient(v1, v1), tape.gradient([y, v1], v1))
print(tape.gradient(v1, v1, output_gradients=tf.constant([2.0, -1.0])))
print(type(v0).__name__, isinstance(v0, tf.Variable), type(v0 + 1).__name__)
