# Source: tensorflow/docs, site/en/tutorials/quickstart/beginner.ipynb
#   at 7c3650212740204359d4ceae481abc79345541be (Apache-2.0)
# Changed: the notebook's code cells in order, as one script (shell `!pip` and `%` lines dropped,
#   drawing with matplotlib removed with the calls of the notebook's own drawing functions, a
#   cell's last bare expression printed as the notebook shows it); the MNIST download is 512
#   (train) and 128 (test) random 28x28 images whose label is the brightest of their first ten
#   pixels; 5 epochs -> 2.
#@title Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
# https://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

import tensorflow as tf
print("TensorFlow version:", tf.__version__)

# mnist.load_data(), replaced: 512 training and 128 test random 28x28 images whose label is
# the brightest of their first ten pixels.
import numpy as np
_rng = np.random.RandomState(0)
x_train = _rng.randint(0, 256, (512, 28, 28)).astype(np.uint8)
y_train = x_train.reshape(512, -1)[:, :10].argmax(axis=1).astype(np.uint8)
x_test = _rng.randint(0, 256, (128, 28, 28)).astype(np.uint8)
y_test = x_test.reshape(128, -1)[:, :10].argmax(axis=1).astype(np.uint8)
x_train, x_test = x_train / 255.0, x_test / 255.0

model = tf.keras.models.Sequential([
  tf.keras.layers.Flatten(input_shape=(28, 28)),
  tf.keras.layers.Dense(128, activation='relu'),
  tf.keras.layers.Dropout(0.2),
  tf.keras.layers.Dense(10)
])

predictions = model(x_train[:1]).numpy()
print(predictions)

print(tf.nn.softmax(predictions).numpy())

loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

print(loss_fn(y_train[:1], predictions).numpy())

print(model.compile(optimizer='adam',
              loss=loss_fn,
              metrics=['accuracy']))

print(model.fit(x_train, y_train, epochs=2))

print(model.evaluate(x_test,  y_test, verbose=2))

probability_model = tf.keras.Sequential([
  model,
  tf.keras.layers.Softmax()
])

print(probability_model(x_test[:5]))
