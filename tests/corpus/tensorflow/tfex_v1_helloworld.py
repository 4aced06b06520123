# Source: aymericdamien/TensorFlow-Examples, tensorflow_v1/examples/1_Introduction/helloworld.py
#   at 6dcbe14649163814e72a22a999f20c5e247ce988 (MIT)
# Changed: `import tensorflow as tf` -> `import tensorflow.compat.v1 as tf` +
#   `tf.disable_v2_behavior()` (TensorFlow's documented way to run TF1 code on TF2); nothing else.
'''
HelloWorld example using TensorFlow library.

Author: Aymeric Damien
Project: https://github.com/aymericdamien/TensorFlow-Examples/
'''

from __future__ import print_function

import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()

# Simple hello world using TensorFlow

# Create a Constant op
# The op is added as a node to the default graph.
#
# The value returned by the constructor represents the output
# of the Constant op.
hello = tf.constant('Hello, TensorFlow!')

# Start tf session
sess = tf.Session()

# Run the op
print(sess.run(hello))
