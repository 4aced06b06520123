# keras.random on TensorFlow (Keras 3.15 / TF 2.21): normal / uniform / truncated_normal with an int
# seed (the same numbers each call) and with a SeedGenerator (new numbers each call, [seed, n]), as
# keras-io's GAN draws its latent vectors; and a Mean metric given per-sample values with (n, 1)
# sample weights, as keras-io's custom train_step updates its metrics.
import numpy as np
import keras

print(np.round(keras.random.normal((2, 3), seed=7).numpy(), 6))
print(np.round(keras.random.normal((2, 3), seed=7).numpy(), 6))
print(np.round(keras.random.uniform((4,), minval=-1.0, maxval=2.0, seed=3).numpy(), 6))
print(np.round(keras.random.truncated_normal((5,), stddev=0.5, seed=11).numpy(), 6))

gen = keras.random.SeedGenerator(1337)
for _ in range(3):
    print(np.round(keras.random.normal(shape=(2, 4), seed=gen).numpy(), 6))
print(np.round(0.05 * keras.random.uniform((3, 1), seed=gen).numpy(), 6))
print(keras.random.SeedGenerator(5).state.numpy(), gen.state.numpy())

values = np.array([0.5, 1.5, 2.0, 4.0], "float32")
weights = np.array([[1.0], [0.5], [0.0], [2.0]], "float32")
m = keras.metrics.Mean()
m.update_state(values, sample_weight=weights)
print(round(float(m.result()), 6))
m.update_state(np.array([[1.0, 3.0], [2.0, 2.0]], "float32"), sample_weight=np.array([1.0, 3.0], "float32"))
print(round(float(m.result()), 6))
m.update_state(np.array([[1.0, 2.0], [5.0, 7.0]], "float32"))
print(round(float(m.result()), 6))

mae = keras.metrics.MeanAbsoluteError()
y_true = np.array([[0.0], [1.0], [2.0]], "float32")
y_pred = np.array([[0.5], [0.0], [2.5]], "float32")
mae.update_state(y_true, y_pred, sample_weight=np.array([[1.0], [2.0], [0.5]], "float32"))
print(round(float(mae.result()), 6))

# no seed: Keras' global SeedGenerator, made with Python's random (seeded by set_random_seed) and
# stepped by its unordered rule
keras.utils.set_random_seed(3)
print(np.round(keras.random.normal((3,)).numpy(), 6), np.round(keras.random.uniform((2,)).numpy(), 6))
