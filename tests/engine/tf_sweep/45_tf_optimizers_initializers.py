# TF 2.x's own names for Keras' optimizers and initializers (tf.optimizers, tf.initializers, as
# aymericdamien's TensorFlow-Examples and d2l use them), TF's init_ops_v2 initializers
# (tf.random_normal_initializer ...: seeded ones draw the stateless Philox stream), a variable's
# slice assign, and a Sequential holding one layer twice (TF 2.21 / Keras 3).
import numpy as np
import tensorflow as tf

print(tf.optimizers.SGD is tf.keras.optimizers.SGD, tf.initializers.GlorotUniform is tf.keras.initializers.GlorotUniform)

# ---- tf.optimizers in a GradientTape loop: apply_gradients, and minimize with a loss function
x = np.linspace(-1.0, 1.0, 8).astype("float32")
y = 3.0 * x - 0.5
for make in (lambda: tf.optimizers.SGD(0.1), lambda: tf.optimizers.SGD(0.05, momentum=0.9),
             lambda: tf.optimizers.Adam(0.1), lambda: tf.optimizers.RMSprop(0.05), lambda: tf.optimizers.Adagrad(0.3)):
    opt = make()
    W, b = tf.Variable(0.2, name="weight"), tf.Variable(-0.1, name="bias")
    for step in range(5):
        with tf.GradientTape() as g:
            loss = tf.reduce_mean(tf.square(W * x + b - y))
        grads = g.gradient(loss, [W, b])
        opt.apply_gradients(zip(grads, [W, b]))
    print(type(opt).__name__, int(opt.iterations.numpy()), f"{float(loss):.6f} {W.numpy():.6f} {b.numpy():.6f}")

opt = tf.optimizers.Adam(0.05)
W = tf.Variable([[0.5], [-0.25]])
features = tf.constant([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]])
target = tf.constant([[1.0], [0.0], [2.0]])
for step in range(4):
    with tf.GradientTape() as g:
        loss = tf.reduce_sum(tf.square(tf.matmul(features, W) - target))
    opt.apply(g.gradient(loss, [W]), [W])          # Keras 3's apply(grads, vars)
print("apply", int(opt.iterations.numpy()), np.round(W.numpy().ravel(), 6))
try:                                                # Keras 3's optimizers have no minimize (TF1's do)
    opt.minimize(lambda: loss, var_list=[W])
except AttributeError as e:
    print("AttributeError", e)

# ---- tf.initializers: Keras' (seeded: Philox)
print(np.round(tf.initializers.GlorotUniform(seed=3)((3, 4)).numpy(), 6))
print(np.round(tf.initializers.RandomNormal(stddev=0.5, seed=11)((2, 3)).numpy(), 6))

# ---- TF's own initializers (init_ops_v2)
print(tf.random_normal_initializer(mean=1.0, stddev=2.0, seed=5)(shape=(2, 3)))
print(tf.random_uniform_initializer(-1.0, 1.0, seed=7)(shape=(5,)))
print(tf.random_normal_initializer(seed=0)((4,)))
print(tf.zeros_initializer()(shape=(2, 2)))
print(tf.ones_initializer()((3,), dtype=tf.float64))
print(tf.constant_initializer([1, 2, 3, 4])((2, 2), dtype=tf.float32))
print(tf.constant_initializer(3.5)((2,)))
print(tf.random_normal_initializer(seed=0).get_config())
v = tf.Variable(tf.random_uniform_initializer(0.0, 1.0, seed=42)(shape=(2, 2)), name="v")
print(v)
try:
    tf.random_normal_initializer()(shape=(2,), dtype=tf.int32)
except ValueError as e:
    print("ValueError", e)

dense = tf.keras.layers.Dense(3, kernel_initializer=tf.random_normal_initializer(stddev=0.1, seed=2),
                              bias_initializer=tf.constant_initializer(0.5))
out = dense(tf.constant([[1.0, 2.0], [-1.0, 0.5]]))
print(np.round(dense.kernel.numpy(), 6), dense.bias.numpy())
print(np.round(out.numpy(), 6))
print(dense.bias)

# ---- v[key].assign: TF's strided-slice assign into the variable
v = tf.Variable([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
v[0, 0].assign(42.0)
print(v.numpy())
v[:].assign(v + 1)
print(v.numpy())
v[1].assign([7.0, 8.0, 9.0])
v[:, 2].assign(tf.constant([-1.0, -2.0]))
print(v.numpy())
print(v[0, 1])

# ---- one layer twice in a Sequential: Keras 3 keeps both entries, and the weights once
shared = tf.keras.layers.Dense(2, kernel_initializer="ones")
net = tf.keras.Sequential([shared, shared, tf.keras.layers.Dense(1, kernel_initializer="ones")])
print(net(tf.constant([[1.0, -0.5]])).numpy(), len(net.layers), len(net.weights))
