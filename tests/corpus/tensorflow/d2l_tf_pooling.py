# Source: d2l-ai/d2l-zh, chapter_convolutional-neural-networks/pooling.md
#   at e6b18ccea71451a55fcd861d7b96fddf2587b09a (Apache-2.0)
# Modules: d2l/tensorflow.py as d2l.tensorflow
# Changed: the chapter's tensorflow code cells in order, as one script (`%matplotlib inline`
#   dropped, a cell's last bare expression printed as the notebook shows it, statements drawing
#   with d2l.plt or IPython.display removed, a chapter's own Animator class replaced by the shim's
#   no-op d2l.Animator). d2l's helpers are tests/corpus/modules/d2l/.
import tensorflow as tf

def pool2d(X, pool_size, mode='max'):
    p_h, p_w = pool_size
    Y = tf.Variable(tf.zeros((X.shape[0] - p_h + 1, X.shape[1] - p_w +1)))
    for i in range(Y.shape[0]):
        for j in range(Y.shape[1]):
            if mode == 'max':
                Y[i, j].assign(tf.reduce_max(X[i: i + p_h, j: j + p_w]))
            elif mode =='avg':
                Y[i, j].assign(tf.reduce_mean(X[i: i + p_h, j: j + p_w]))
    return Y

X = d2l.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]])
print(pool2d(X, (2, 2)))

print(pool2d(X, (2, 2), 'avg'))

X = d2l.reshape(d2l.arange(16, dtype=d2l.float32), (1, 4, 4, 1))
print(X)

pool2d = tf.keras.layers.MaxPool2D(pool_size=[3, 3])
print(pool2d(X))

paddings = tf.constant([[0, 0], [1,0], [1,0], [0,0]])
X_padded = tf.pad(X, paddings, "CONSTANT")
pool2d = tf.keras.layers.MaxPool2D(pool_size=[3, 3], padding='valid',
                                   strides=2)
print(pool2d(X_padded))

paddings = tf.constant([[0, 0], [0, 0], [1, 1], [0, 0]])
X_padded = tf.pad(X, paddings, "CONSTANT")
pool2d = tf.keras.layers.MaxPool2D(pool_size=[2, 3], padding='valid',
                                   strides=(2, 3))
print(pool2d(X_padded))

X = tf.concat([X, X + 1], 3)

paddings = tf.constant([[0, 0], [1,0], [1,0], [0,0]])
X_padded = tf.pad(X, paddings, "CONSTANT")
pool2d = tf.keras.layers.MaxPool2D(pool_size=[3, 3], padding='valid',
                                   strides=2)
print(pool2d(X_padded))
