# tf.broadcast_to (and its gradient), tf.ragged.constant, tf.strings' split/bytes_split/unicode_*/
# to_number, tf.io.decode_raw, and the words of a reshape that cannot fit (a guide prints them).
import tensorflow as tf

print(tf.broadcast_to(tf.constant([1, 2, 3]), [3, 3]), tf.broadcast_to(tf.constant(2.5), [2]))
v = tf.Variable([[1.0], [2.0]])
with tf.GradientTape() as tape:
    y = tf.reduce_sum(tf.broadcast_to(v, [3, 2, 4]) * tf.range(4, dtype=tf.float32))
print(y, tape.gradient(y, v))
try:
    tf.broadcast_to(tf.constant([1, 2, 3]), [2, 2])
except tf.errors.InvalidArgumentError as e:
    print(type(e).__name__)

r = tf.ragged.constant([[0, 1, 2, 3], [4, 5], [6, 7, 8], [9]])
print(r, r.shape, r.dtype, r.to_list(), r.values, r.row_splits)
print(tf.ragged.constant([[1.5], [], [2.0, 3.0]]), tf.ragged.constant([["a"], ["b", "c"]]))
try:
    tf.constant([[1, 2], [3]])
except ValueError as e:
    print(f"{type(e).__name__}: {e}")

words = tf.constant(["Gray wolf", "Quick  brown fox", "Lazy dog"])
print(tf.strings.split(words), tf.strings.split(tf.constant("a,b,,c"), sep=","))
print(tf.strings.split(tf.constant("1 10 100"), " "), tf.strings.to_number(tf.constant(["1.5", "-2"])))
print(tf.strings.to_number(tf.constant([["3", "4"]]), out_type=tf.int32))
print(tf.strings.bytes_split(tf.constant(["ab", "c"])), tf.strings.bytes_split(tf.constant("Duck")))
print(tf.io.decode_raw(tf.constant("Duck"), tf.uint8), tf.io.decode_raw(tf.constant(["ab", "cd"]), tf.uint8))
print(tf.io.decode_raw(tf.constant("abcd"), tf.int16))
print(tf.strings.unicode_split(tf.constant("アヒル 🦆"), "UTF-8"), tf.strings.unicode_decode(tf.constant("アヒル 🦆"), "UTF-8"))
print(tf.strings.unicode_decode(tf.constant(["hé", "🦆"]), "UTF-8"))

x = tf.reshape(tf.range(30), [3, 2, 5])
for shape in ([7, -1], [4, 7], [5, 7]):
    try:
        tf.reshape(x, shape)
    except Exception as e:
        print(f"{type(e).__name__}: {e}")
