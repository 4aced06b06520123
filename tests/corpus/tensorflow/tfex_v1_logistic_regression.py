# Source: aymericdamien/TensorFlow-Examples, tensorflow_v1/examples/2_BasicModels/logistic_regression.py
#   at 6dcbe14649163814e72a22a999f20c5e247ce988 (MIT)
# Changed: `import tensorflow as tf` -> `import tensorflow.compat.v1 as tf` +
#   `tf.disable_v2_behavior()` (TensorFlow's documented way to run TF1 code on TF2); the MNIST
#   download is an object with the same next_batch/images/labels over random images around ten
#   class templates (512 train, 256 test); training_epochs 25 -> 3, batch_size 100 -> 64.
'''
A logistic regression learning algorithm example using TensorFlow library.
This example is using the MNIST database of handwritten digits
(http://yann.lecun.com/exdb/mnist/)

Author: Aymeric Damien
Project: https://github.com/aymericdamien/TensorFlow-Examples/
'''

from __future__ import print_function

import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()

# Import MNIST data
# The MNIST download (input_data.read_data_sets), replaced: an object with the same next_batch,
# images and labels, over 512 training and 256 test random images around ten class templates.
import numpy as _np
class _DataSet:
    def __init__(self, n, templates, rng):
        y = _np.arange(n) % 10
        self.images = _np.clip(templates[y] + 0.3 * rng.rand(n, 784), 0, 1).astype(_np.float32)
        self.labels = _np.eye(10, dtype=_np.float32)[y]
        self.num_examples = n
        self._at = 0
    def next_batch(self, batch_size):
        i = self._at
        self._at = (i + batch_size) % self.num_examples
        idx = _np.arange(i, i + batch_size) % self.num_examples
        return self.images[idx], self.labels[idx]
class _MNIST:
    def __init__(self):
        rng = _np.random.RandomState(0)
        templates = rng.rand(10, 784)
        self.train, self.test = _DataSet(512, templates, rng), _DataSet(256, templates, rng)
mnist = _MNIST()

# Parameters
learning_rate = 0.01
training_epochs = 3
batch_size = 64
display_step = 1

# tf Graph Input
x = tf.placeholder(tf.float32, [None, 784]) # mnist data image of shape 28*28=784
y = tf.placeholder(tf.float32, [None, 10]) # 0-9 digits recognition => 10 classes

# Set model weights
W = tf.Variable(tf.zeros([784, 10]))
b = tf.Variable(tf.zeros([10]))

# Construct model
pred = tf.nn.softmax(tf.matmul(x, W) + b) # Softmax

# Minimize error using cross entropy
cost = tf.reduce_mean(-tf.reduce_sum(y*tf.log(pred), reduction_indices=1))
# Gradient Descent
optimizer = tf.train.GradientDescentOptimizer(learning_rate).minimize(cost)

# Initialize the variables (i.e. assign their default value)
init = tf.global_variables_initializer()

# Start training
with tf.Session() as sess:

    # Run the initializer
    sess.run(init)

    # Training cycle
    for epoch in range(training_epochs):
        avg_cost = 0.
        total_batch = int(mnist.train.num_examples/batch_size)
        # Loop over all batches
        for i in range(total_batch):
            batch_xs, batch_ys = mnist.train.next_batch(batch_size)
            # Run optimization op (backprop) and cost op (to get loss value)
            _, c = sess.run([optimizer, cost], feed_dict={x: batch_xs,
                                                          y: batch_ys})
            # Compute average loss
            avg_cost += c / total_batch
        # Display logs per epoch step
        if (epoch+1) % display_step == 0:
            print("Epoch:", '%04d' % (epoch+1), "cost=", "{:.9f}".format(avg_cost))

    print("Optimization Finished!")

    # Test model
    correct_prediction = tf.equal(tf.argmax(pred, 1), tf.argmax(y, 1))
    # Calculate accuracy
    accuracy = tf.reduce_mean(tf.cast(correct_prediction, tf.float32))
    print("Accuracy:", accuracy.eval({x: mnist.test.images, y: mnist.test.labels}))
