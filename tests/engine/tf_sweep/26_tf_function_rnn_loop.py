# The tf.function guide's dynamic_rnn (a TensorArray written in `for i in tf.range(...)`), and indexing with
# a loop's tensor index: x[i], x[i, 1], x[:, 0][i] inside a tf.range loop whose bound is a tensor.
import tensorflow as tf


def rnn_step(inp, state):
    return inp + state


@tf.function
def dynamic_rnn(rnn_step, input_data, initial_state):
    # [batch, time, features] -> [time, batch, features]
    input_data = tf.transpose(input_data, [1, 0, 2])
    max_seq_len = input_data.shape[0]
    states = tf.TensorArray(tf.float32, size=max_seq_len)
    state = initial_state
    for i in tf.range(max_seq_len):
        state = rnn_step(input_data[i], state)
        states = states.write(i, state)
    return tf.transpose(states.stack(), [1, 0, 2])


print(dynamic_rnn(rnn_step, tf.reshape(tf.range(24, dtype=tf.float32), [2, 3, 4]), tf.zeros([2, 4])))


@tf.function
def picks(x, n):
    total = tf.zeros([2])
    corner = tf.constant(0.0)
    for i in tf.range(n):
        total = total + x[i]
        corner = corner + x[i, 1] * x[:, 0][i]
    return total, corner


print(picks(tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), tf.constant(3)))
x = tf.constant([10, 20, 30])
print(x[tf.constant(1)], x[tf.constant(-1)])
w = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
with tf.GradientTape() as tape:
    total, corner = picks(w, tf.constant(2))
    loss = tf.reduce_sum(total) + corner
print(loss.numpy(), tape.gradient(loss, w))
