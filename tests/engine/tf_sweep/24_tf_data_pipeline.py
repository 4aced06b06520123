# tf.data: from_tensor_slices (tensors, tuples, dicts), batch, map, filter, take, skip, repeat, zip,
# concatenate, enumerate, unbatch, cardinality and len; a small training loop over batches.
# (shuffle's order is TensorFlow's own generator's: the program prints only what does not depend on it.)
import numpy as np
import tensorflow as tf

ds = tf.data.Dataset.from_tensor_slices([1, 2, 3, 4, 5])
print(ds)
for x in ds.take(2):
    print(x)
print(list(ds.as_numpy_iterator()))
print(list(ds.batch(2).as_numpy_iterator()), ds.batch(2))
print(list(ds.batch(2, drop_remainder=True).as_numpy_iterator()), ds.batch(2, drop_remainder=True))
print(list(ds.map(lambda x: x * 2).as_numpy_iterator()))
print(list(ds.filter(lambda x: x % 2 == 1).as_numpy_iterator()))
print(list(ds.skip(3).as_numpy_iterator()), list(ds.repeat(2).take(7).as_numpy_iterator()))
print(len(ds), ds.cardinality(), ds.repeat().cardinality(), ds.filter(lambda x: x > 2).cardinality())
for d in (ds.repeat(), ds.filter(lambda x: x > 2)):
    try:
        len(d)
    except TypeError as e:
        print("TypeError:", e)

xs = np.arange(8.0, dtype=np.float32).reshape(4, 2)
ys = np.array([0, 1, 1, 0])
pairs = tf.data.Dataset.from_tensor_slices((xs, ys))
print(pairs)
for a, b in pairs.batch(3):
    print(a, b)
print(pairs.map(lambda x, y: (x * 2.0, y + 1)))
print(list(pairs.map(lambda x, y: tf.reduce_sum(x) * tf.cast(y, tf.float32)).as_numpy_iterator()))

records = tf.data.Dataset.from_tensor_slices({"a": [1, 2, 3], "b": [4.0, 5.0, 6.0]})
print(records.batch(2), list(records.batch(2).as_numpy_iterator()))
z = tf.data.Dataset.zip((tf.data.Dataset.range(3), tf.data.Dataset.range(10, 12)))
print(z, list(z.as_numpy_iterator()))
print(list(tf.data.Dataset.range(2).concatenate(tf.data.Dataset.range(5, 7)).as_numpy_iterator()))
print(list(tf.data.Dataset.range(1, 8, 3).enumerate().as_numpy_iterator()))
print(list(tf.data.Dataset.range(5).batch(2).unbatch().as_numpy_iterator()))
print(tf.data.Dataset.from_tensors([1, 2]), tf.data.AUTOTUNE, pairs.prefetch(tf.data.AUTOTUNE))
print(sorted(tf.data.Dataset.range(6).shuffle(6).as_numpy_iterator()))

w = tf.Variable([0.0, 0.0])
b = tf.Variable(0.0)
data = tf.data.Dataset.from_tensor_slices((xs, np.array([1.0, 3.0, 5.0, 7.0], np.float32))).batch(2)
for epoch in range(3):
    for xb, yb in data:
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((tf.reduce_sum(xb * w, axis=1) + b - yb) ** 2)
        gw, gb = tape.gradient(loss, [w, b])
        w.assign_sub(0.01 * gw)
        b.assign_sub(0.01 * gb)
    print(epoch, loss.numpy(), w.numpy(), b.numpy())
