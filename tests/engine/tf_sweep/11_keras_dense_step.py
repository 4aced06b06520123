# A Keras Dense network with fixed initial weights: forward, a loss, gradients and one SGD and one Adam step.
import numpy as np
import tensorflow as tf

model = tf.keras.Sequential([
    tf.keras.layers.Dense(3, activation="tanh", kernel_initializer="ones", bias_initializer="zeros"),
    tf.keras.layers.Dense(1, kernel_initializer="ones", bias_initializer="ones"),
])
x = tf.constant([[1.0, 2.0], [-1.0, 0.5], [0.0, 3.0]])
model(x)                                            # builds the layers; then weights of our choosing
model.layers[0].kernel.assign([[0.1, -0.2, 0.3], [0.05, 0.1, -0.1]])
model.layers[1].kernel.assign([[-0.2], [0.4], [0.1]])
y = tf.constant([[1.0], [0.0], [2.0]])
print(model(x).numpy())
loss_fn = tf.keras.losses.MeanSquaredError()
with tf.GradientTape() as tape:
    loss = loss_fn(y, model(x))
grads = tape.gradient(loss, model.trainable_variables)
print(round(float(loss), 6), [g.shape for g in grads])
for g in grads:
    print(np.round(g.numpy(), 6))
tf.keras.optimizers.SGD(learning_rate=0.1).apply_gradients(zip(grads, model.trainable_variables))
print(np.round(model.layers[1].kernel.numpy(), 6), np.round(model.layers[1].bias.numpy(), 6))
adam = tf.keras.optimizers.Adam(learning_rate=0.01)
for step in range(3):
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x))
    adam.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
    print(step, round(float(loss), 5))
