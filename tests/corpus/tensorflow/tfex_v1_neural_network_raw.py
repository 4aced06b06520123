# Source: aymericdamien/TensorFlow-Examples, tensorflow_v1/examples/3_NeuralNetworks/neural_network_raw.py
#   at 6dcbe14649163814e72a22a999f20c5e247ce988 (MIT)
# Changed: `import tensorflow as tf` -> `import tensorflow.compat.v1 as tf` +
#   `tf.disable_v2_behavior()` (TensorFlow's documented way to run TF1 code on TF2); the MNIST
#   download is an object with the same next_batch/images/labels over random images around ten
#   class templates (512 train, 256 test); num_steps 500 -> 5, display_step 100 -> 5, hidden 256 ->
#   64.
""" Neural Network.

A 2-Hidden Layers Fully Connected Neural Network (a.k.a Multilayer Perceptron)
implementation with TensorFlow. This example is using the MNIST database
of handwritten digits (http://yann.lecun.com/exdb/mnist/).

Links:
    [MNIST Dataset](http://yann.lecun.com/exdb/mnist/).

Author: Aymeric Damien
Project: https://github.com/aymericdamien/TensorFlow-Examples/
"""

from __future__ import print_function

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

import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()

# Parameters
learning_rate = 0.1
num_steps = 5
batch_size = 128
display_step = 5

# Network Parameters
n_hidden_1 = 64 # 1st layer number of neurons
n_hidden_2 = 64 # 2nd layer number of neurons
num_input = 784 # MNIST data input (img shape: 28*28)
num_classes = 10 # MNIST total classes (0-9 digits)

# tf Graph input
X = tf.placeholder("float", [None, num_input])
Y = tf.placeholder("float", [None, num_classes])

# Store layers weight & bias
weights = {
    'h1': tf.Variable(tf.random_normal([num_input, n_hidden_1])),
    'h2': tf.Variable(tf.random_normal([n_hidden_1, n_hidden_2])),
    'out': tf.Variable(tf.random_normal([n_hidden_2, num_classes]))
}
biases = {
    'b1': tf.Variable(tf.random_normal([n_hidden_1])),
    'b2': tf.Variable(tf.random_normal([n_hidden_2])),
    'out': tf.Variable(tf.random_normal([num_classes]))
}


# Create model
def neural_net(x):
    # Hidden fully connected layer with 256 neurons
    layer_1 = tf.add(tf.matmul(x, weights['h1']), biases['b1'])
    # Hidden fully connected layer with 256 neurons
    layer_2 = tf.add(tf.matmul(layer_1, weights['h2']), biases['b2'])
    # Output fully connected layer with a neuron for each class
    out_layer = tf.matmul(layer_2, weights['out']) + biases['out']
    return out_layer

# Construct model
logits = neural_net(X)
prediction = tf.nn.softmax(logits)

# Define loss and optimizer
loss_op = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(
    logits=logits, labels=Y))
optimizer = tf.train.AdamOptimizer(learning_rate=learning_rate)
train_op = optimizer.minimize(loss_op)

# Evaluate model
correct_pred = tf.equal(tf.argmax(prediction, 1), tf.argmax(Y, 1))
accuracy = tf.reduce_mean(tf.cast(correct_pred, tf.float32))

# Initialize the variables (i.e. assign their default value)
init = tf.global_variables_initializer()

# Start training
with tf.Session() as sess:

    # Run the initializer
    sess.run(init)

    for step in range(1, num_steps+1):
        batch_x, batch_y = mnist.train.next_batch(batch_size)
        # Run optimization op (backprop)
        sess.run(train_op, feed_dict={X: batch_x, Y: batch_y})
        if step % display_step == 0 or step == 1:
            # Calculate batch loss and accuracy
            loss, acc = sess.run([loss_op, accuracy], feed_dict={X: batch_x,
                                                                 Y: batch_y})
            print("Step " + str(step) + ", Minibatch Loss= " + \
                  "{:.4f}".format(loss) + ", Training Accuracy= " + \
                  "{:.3f}".format(acc))

    print("Optimization Finished!")

    # Calculate accuracy for MNIST test images
    print("Testing Accuracy:", \
        sess.run(accuracy, feed_dict={X: mnist.test.images,
                                      Y: mnist.test.labels}))
