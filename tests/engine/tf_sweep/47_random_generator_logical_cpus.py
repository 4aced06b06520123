# tf.random.Generator: TensorFlow's stateful Philox stream (from_seed's state, normal/uniform/ints/
# truncated_normal and how far each moves the counter, split, make_seeds, reset), float64 draws, and
# logical CPUs set before the runtime starts (and refused after it), as the random-numbers guide makes them.
import tensorflow as tf, numpy as np
physical_devices = tf.config.list_physical_devices("CPU")
print(tf.config.experimental.set_virtual_device_configuration(
    physical_devices[0], [tf.config.experimental.VirtualDeviceConfiguration()] * 3))
print(tf.config.list_logical_devices("CPU"), len(tf.config.get_logical_device_configuration(physical_devices[0])))
g = tf.random.Generator.from_seed(1)
print(g.state.numpy(), g.algorithm)
print(g.normal([2,3]).numpy().tolist())
print(g.state.numpy())
print(g.normal([]).numpy().tolist(), g.state.numpy())
print(g.uniform([5]).numpy().tolist(), g.state.numpy())
g = tf.random.Generator.from_seed(1)
print(g.uniform_full_int([3], dtype=tf.int64).numpy().tolist(), g.state.numpy())
g = tf.random.Generator.from_seed(1)
s = g.split(3)
print([x.state.numpy().tolist() for x in s], g.state.numpy())
print(g.uniform([2], minval=2, maxval=10, dtype=tf.int32).numpy().tolist(), g.state.numpy())
print(g.uniform([3], minval=-1.0, maxval=2.0).numpy().tolist())
print(g.truncated_normal([6]).numpy().tolist(), g.state.numpy())
g = tf.random.Generator.from_seed(12345678901234)
print(g.state.numpy(), g.normal([3]).numpy().tolist())
g = tf.random.Generator.from_state([5, 6, 7], alg="philox")
print(g.normal([2]).numpy().tolist())
print(g.normal([2], dtype=tf.float64).numpy().tolist())
g.reset_from_seed(1); print(g.normal([]).numpy())
print([x.normal([]).numpy() for x in g.split(2)])
print(g.make_seeds(2).numpy().tolist())
try:
    tf.config.set_logical_device_configuration(physical_devices[0], [tf.config.LogicalDeviceConfiguration()])
except RuntimeError as e:
    print(e)
print(tf.random.stateless_normal([2, 3], seed=[1, 2]))
print(tf.random.stateless_truncated_normal([5], seed=[7, 8]), tf.random.stateless_uniform([3], seed=[1, 2], minval=1.0, maxval=3.0))
