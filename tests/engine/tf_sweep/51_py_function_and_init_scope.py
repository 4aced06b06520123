# tf.py_function and tf.init_scope as the tf.function guide uses them: a Python function called from a
# traced graph at every call (never while tracing), with one result, several, none, in a loop and in a
# branch; eagerly; and tf.init_scope lifting a variable's update out of the graph (it runs once, while
# tracing), beside the same update inside the graph (every call). Attribute side effects run while tracing.
import tensorflow as tf


@tf.py_function(Tout=tf.float32)
def py_plus(x, y):
    print('Executing eagerly.')
    return x + y


@tf.function
def tf_wrapper(x, y):
    print('Tracing.')
    return py_plus(x, y)


print(tf_wrapper(tf.constant(1.0), tf.constant(2.0)).numpy())
print(tf_wrapper(tf.constant(1.0), tf.constant(2.0)).numpy())
print(py_plus(tf.constant(3.0), tf.constant(4.0)))

calls = []


def split(x):
    calls.append(x.numpy().tolist())
    return x * 2, tf.reduce_sum(x)


@tf.function
def both(x):
    doubled, total = tf.py_function(split, [x], Tout=[tf.float32, tf.float32])
    return doubled + 1, total


print(both(tf.constant([1.0, 2.0])))
print(both(tf.constant([3.0, 4.0])))
print(calls)


def note(x):
    calls.append(int(x))


@tf.function
def counted(n):
    i = tf.constant(0)
    while i < n:
        tf.py_function(note, [i], Tout=[])
        i += 1
    if n > 2:
        tf.py_function(note, [n * 10], Tout=[])
    return i


print(counted(tf.constant(3)), counted(tf.constant(1)))
print(calls)
try:
    tf.py_function(note, [1])
except TypeError as e:
    print(e)


class Model(tf.Module):
    def __init__(self):
        self.v = tf.Variable(0)
        self.counter = 0

    @tf.function
    def __call__(self):
        if self.counter == 0:
            self.counter += 1
            self.v.assign_add(1)
        return self.v


m = Model()
for n in range(3):
    print(m().numpy(), m.counter)


class Lifted(tf.Module):
    def __init__(self):
        self.v = tf.Variable(0)
        self.counter = 0

    @tf.function
    def __call__(self):
        if self.counter == 0:
            with tf.init_scope():
                self.counter += 1
                self.v.assign_add(1)
        return self.v


m = Lifted()
for n in range(3):
    print(m().numpy(), m.counter)
with tf.init_scope():
    print(tf.constant(2) * 3)
