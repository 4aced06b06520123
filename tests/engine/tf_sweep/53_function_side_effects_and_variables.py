# The tf.function guide's pitfalls: a traced tensor assigned to a global leaks (no numpy(), and another
# function cannot use it); a function that makes a tf.Variable at every call is refused, one that makes it
# once (while an attribute is None) is traced twice and then runs; a variable made by a later trace (a
# second optimizer's slots) is refused; a concrete function called with its tensors alone.
import tensorflow as tf

x = None


@tf.function
def leaky_function(a):
    global x
    print("tracing leaky_function")
    x = a + 1
    return x * 2


print(leaky_function(tf.constant(1)).numpy())
try:
    x.numpy()
except AttributeError as expected:
    print(expected)


@tf.function
def captures_leaked_tensor(b):
    b += x
    return b


try:
    captures_leaked_tensor(tf.constant(2))
except TypeError:
    print("TypeError")

counter = 0


@tf.function
def bump(a):
    global counter
    counter += 1
    return a


bump(tf.constant(1))
bump(tf.constant(2))
bump(tf.constant([1, 2]))
print(counter)


@tf.function
def f(x):
    print("tracing f")
    v = tf.Variable(1.0)
    return v


try:
    f(1.0)
except ValueError as e:
    print("ValueError", "only supports singleton tf.Variables created on the first call" in str(e))


class Count(tf.Module):
    def __init__(self):
        self.count = None

    @tf.function
    def __call__(self):
        print("tracing count")
        if self.count is None:
            self.count = tf.Variable(0)
        return self.count.assign_add(1)


c, d = Count(), Count()
print(c(), c(), d(), c())

w = tf.Variable(2.)
opt1 = tf.keras.optimizers.Adam(learning_rate=1e-2)
opt2 = tf.keras.optimizers.Adam(learning_rate=1e-3)


@tf.function
def train_step(w, x, y, optimizer):
    with tf.GradientTape() as tape:
        L = tf.reduce_sum(tf.square(w * x - y))
    gradients = tape.gradient(L, [w])
    optimizer.apply_gradients(zip(gradients, [w]))


train_step(w, tf.constant([-1.]), tf.constant([2.]), opt1)
train_step(w, tf.constant([-1.]), tf.constant([2.]), opt1)
print(w.numpy())
try:
    train_step(w, tf.constant([-1.]), tf.constant([2.]), opt2)
except ValueError:
    print("ValueError for a second optimizer")


class SimpleModel(tf.Module):
    def __init__(self):
        self.bias = 0.
        self.weight = 2.


def evaluate(model, x):
    return model.weight * x + model.bias


new_model = SimpleModel()
evaluate_no_bias = tf.function(evaluate).get_concrete_function(new_model, tf.constant(10.))
print(evaluate_no_bias(tf.constant(10.)), evaluate_no_bias(x=tf.constant(3.)))
new_model.bias += 5.0
print(evaluate_no_bias(tf.constant(10.)))
