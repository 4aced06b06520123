# tf.random.Generator draws inside a tf.function (the random-numbers guide's cells): each call of the graph
# draws anew and moves the generator's state on, as TensorFlow's stateful random ops do, in a loop's body
# too; a generator made inside the function on its first trace; generators and variables as arguments.
import tensorflow as tf
g = tf.random.Generator.from_seed(1)
@tf.function
def foo():
  return g.normal([])
print(foo())
print(foo())
print(g.normal([]))

g = None
@tf.function
def foo():
  global g
  if g is None:
    g = tf.random.Generator.from_seed(1)
  return g.normal([])
print(foo())
print(foo())

num_traces = 0
@tf.function
def foo(g):
  global num_traces
  num_traces += 1
  return g.normal([])
foo(tf.random.Generator.from_seed(1))
foo(tf.random.Generator.from_seed(2))
print(num_traces)

num_traces = 0
@tf.function
def foo(v):
  global num_traces
  num_traces += 1
  return v.read_value()
foo(tf.Variable(1))
foo(tf.Variable(2))
print(num_traces)

g = tf.random.Generator.from_seed(5)
@tf.function
def draws(n):
  a = g.uniform([2], maxval=10, dtype=tf.int32)
  b = g.normal([2, 2], mean=1.0, stddev=2.0)
  c = tf.constant(0.)
  for i in tf.range(n):
    c += g.uniform([])
  return a, b, c
a, b, c = draws(tf.constant(3))
print(a, b, float(c))
a, b, c = draws(tf.constant(2))
print(a, b, float(c))
print(g.normal([2]))
