# break and continue in a tf.function's loops, as AutoGraph lowers them: in a loop over a tensor, tf.range,
# a Dataset or a while on a tensor (the loop's test checks a break flag; what follows a continue is skipped),
# nested loops, a Python loop whose break Python decides; a Python loop whose break depends on a tensor is
# TensorFlow's NotImplementedError.
import tensorflow as tf

@tf.function
def first_over(x, limit):
  found = tf.constant(-1.0)
  for v in x:
    if v > limit:
      found = v
      break
  return found
print(first_over(tf.constant([1., 5., 2., 7.]), tf.constant(3.)))
print(first_over(tf.constant([1., 2.]), tf.constant(3.)))

@tf.function
def odd_sum(n):
  s = tf.constant(0)
  for i in tf.range(n):
    if i % 2 == 0:
      continue
    s += i
  return s
print(odd_sum(tf.constant(10)))

@tf.function
def count_until(n):
  i = tf.constant(0)
  while i < 100:
    i += 1
    if i >= n:
      break
  return i
print(count_until(tf.constant(7)))

@tf.function
def py_loop(x):
  for k in range(10):
    if k == 3:
      break
    if k == 1:
      continue
    x += k
  return x
print(py_loop(tf.constant(100)))

ds = tf.data.Dataset.range(10)
@tf.function
def ds_break(d):
  s = tf.constant(0, tf.int64)
  for e in d:
    if e > 4:
      break
    s += e
  return s
print(ds_break(ds))

@tf.function
def nested(n):
  total = tf.constant(0)
  for i in tf.range(n):
    for j in tf.range(n):
      if j > i:
        break
      total += 1
  return total
print(nested(tf.constant(4)))

@tf.function
def tensor_break_in_py_loop(x):
  for k in range(5):
    if x > 10:
      break
    x = x * 2
  return x
try:
  tensor_break_in_py_loop(tf.constant(3))
except NotImplementedError as e:
  print("NotImplementedError:", "depend on a TF condition are not supported in Python for loops" in str(e))
