# tf.gather / tf.gather_nd / tf.scatter_nd / tf.tensor_scatter_nd_*, tf.slice / tf.strided_slice and
# slices with a negative step (x[::-1]), with their gradients, and the errors of indices outside.
import tensorflow as tf

x = tf.reshape(tf.range(12, dtype=tf.float32), [3, 4])
print(tf.gather(x, [2, 0]))
print(tf.gather(x, [[1, 3], [0, 0]], axis=1))
print(tf.gather(x, 1), tf.gather(x, tf.constant(3, tf.int64), axis=-1))
print(tf.gather_nd(x, [[0, 1], [2, 3]]), tf.gather_nd(x, [[1]]))
print(tf.gather_nd(tf.reshape(tf.range(8), [2, 2, 2]), [[[0, 1]], [[1, 0]]]))
print(tf.scatter_nd([[1], [3], [1]], [1.0, 2.0, 3.0], [5]))
print(tf.scatter_nd([[0, 1], [2, 0]], [[1, 2], [3, 4]], tf.constant([3, 3, 2])))
t = tf.constant([[1, 2], [3, 4]])
for op in (tf.tensor_scatter_nd_update, tf.tensor_scatter_nd_add, tf.tensor_scatter_nd_sub,
           tf.tensor_scatter_nd_min, tf.tensor_scatter_nd_max):
    print(op(t, [[0, 1], [1, 0]], [9, -9]).numpy().tolist(), op(t, [[1]], [[5, 0]]).numpy().tolist())

v = tf.Variable([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]])
u = tf.Variable([10.0, 2.0])
with tf.GradientTape(persistent=True) as tape:
    losses = [tf.reduce_sum(tf.gather(v, [1, 1, 0]) ** 2),
              tf.reduce_sum(tf.gather(v, [[2], [0]], axis=1) * [[1.0], [3.0]]),
              tf.reduce_sum(tf.gather_nd(v, [[0, 2], [1, 1], [0, 2]]) ** 3),
              tf.reduce_sum(tf.scatter_nd([[2], [0]], u, [4]) * [1.0, 2.0, 3.0, 4.0]),
              tf.reduce_sum(tf.tensor_scatter_nd_update(v, [[0, 1], [1, 2]], u) ** 2),
              tf.reduce_sum(tf.tensor_scatter_nd_max(v, [[0, 1], [1, 2]], u * 0.1) ** 2),
              tf.reduce_sum(tf.tensor_scatter_nd_sub(v, [[0, 0]], u[:1]) ** 2)]
for loss in losses:
    gv, gu = tape.gradient(loss, [v, u])
    print(loss.numpy(), None if gv is None else tf.convert_to_tensor(gv).numpy().tolist(),
          None if gu is None else gu.numpy().tolist())

r = tf.range(8)
print(r[::-1], r[5:1:-2], r[-1:-9:-3], r[::-3], r[2:5:-1], r[10:])
print(x[::-1, ::2], x[1:, ::-2], x[..., ::-1][0])
print(tf.slice(r, [1], [3]), tf.slice(x, [1, 1], [-1, 2]), tf.slice(x, [0, 0], [3, 4]).shape)
print(tf.strided_slice(r, [1], [6], [2]), tf.strided_slice(x, [0, 3], [2, 0], [1, -1], begin_mask=1))
print(tf.strided_slice(x, [1, 0], [2, 4], shrink_axis_mask=1), tf.strided_slice(x, [0, 1], [0, 3], new_axis_mask=1).shape)
print(tf.strided_slice(x, [0, 2], [0, 3], ellipsis_mask=1))
with tf.GradientTape() as tape:
    y = tf.reduce_sum(v[::-1, ::-2] * [[1.0, 2.0]]) + tf.reduce_sum(tf.slice(v, [0, 1], [2, 1]) ** 2)
print(tape.gradient(y, v))


@tf.function
def picked(params, rows):
    return tf.reduce_sum(tf.gather(params, rows) * 2.0) + params[::-1][0, 0]


with tf.GradientTape() as tape:
    y = picked(v, tf.constant([1, 0, 1]))
print(y, tape.gradient(y, v))

for bad in (lambda: tf.gather(x, [0, 3]), lambda: tf.gather(x, [-1]), lambda: tf.gather(x, [1.0]),
            lambda: tf.gather_nd(x, [[3, 0]]), lambda: tf.gather_nd(x, [[0, 1, 1]]),
            lambda: tf.scatter_nd([[5]], [1], [4]), lambda: tf.tensor_scatter_nd_update(t, [[0, 2]], [1]),
            lambda: tf.slice(r, [6], [3]), lambda: r[9], lambda: r[::0]):
    try:
        bad()
        print("no error")
    except tf.errors.InvalidArgumentError as e:
        print(type(e).__name__)
