# Keras 3 details as it prints them: Normalization's mean and variance after adapt are tensors of the
# broadcast shape; a subclassed losses.Loss converts float64 numpy (and int) inputs to float32 before call.
import numpy as np
import keras
from keras import layers, ops

norm = layers.Normalization()
norm.adapt(np.array([[1.0, 2.0], [3.0, 6.0], [5.0, 10.0]], "float32"))
print(norm(np.array([[3.0, 6.0]], "float32")), norm.mean, norm.variance)
given = layers.Normalization(mean=[1.0, 2.0], variance=[4.0, 9.0])
print(given(np.array([[3.0, 5.0]], "float32")))


class MyLoss(keras.losses.Loss):
    def call(self, y_true, y_pred):
        return ops.mean(ops.abs(y_true - y_pred), axis=-1)


print(MyLoss()(np.array([[1.0, 2.0]]), np.array([[0.0, 4.0]])))
print(MyLoss(reduction="sum")(np.array([[1, 2], [3, 4]]), np.array([[0.5, 2.0], [3.0, 3.0]])))
