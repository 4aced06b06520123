# A training loop inside a tf.function: for each batch of a Dataset, a GradientTape step and an optimizer's
# apply_gradients; the loop carries the weights (and the optimizer's state) the body assigns.
import tensorflow as tf

w = tf.Variable(1.)
b = tf.Variable(0.)
opt = tf.keras.optimizers.SGD(learning_rate=0.05)
xs = tf.constant([1., 2., 3., 4.])
data = tf.data.Dataset.from_tensor_slices((xs, 3 * xs + 1)).batch(2)


@tf.function
def train_epoch(dataset):
    print("tracing train_epoch")
    total = tf.constant(0.)
    for x, y in dataset:
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((w * x + b - y) ** 2)
        grads = tape.gradient(loss, [w, b])
        opt.apply_gradients(zip(grads, [w, b]))
        total += loss
    return total


for epoch in range(3):
    print(epoch, train_epoch(data).numpy(), w.numpy(), b.numpy())
print(opt.iterations.numpy())

model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1, kernel_initializer="ones")])
adam = tf.keras.optimizers.Adam(learning_rate=0.1)
pairs = tf.data.Dataset.from_tensor_slices((tf.constant([[1., 2.], [2., 1.], [0., 1.]]), tf.constant([[1.], [2.], [3.]])))


@tf.function
def fit(dataset):
    last = tf.constant(0.)
    for x, y in dataset.batch(1):
        with tf.GradientTape() as tape:
            last = tf.reduce_mean((model(x) - y) ** 2)
        adam.apply_gradients(zip(tape.gradient(last, model.trainable_variables), model.trainable_variables))
    return last


print(fit(pairs).numpy(), fit(pairs).numpy())
print(model.layers[0].kernel.numpy().ravel(), model.layers[0].bias.numpy())
