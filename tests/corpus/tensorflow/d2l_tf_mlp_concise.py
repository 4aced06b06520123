# Source: d2l-ai/d2l-zh, chapter_multilayer-perceptrons/mlp-concise.md
#   at e6b18ccea71451a55fcd861d7b96fddf2587b09a (Apache-2.0)
# Modules: d2l/tensorflow.py as d2l.tensorflow
# Changed: the chapter's tensorflow code cells in order, as one script (`%matplotlib inline`
#   dropped, a cell's last bare expression printed as the notebook shows it, statements drawing
#   with d2l.plt or IPython.display removed, a chapter's own Animator class replaced by the shim's
#   no-op d2l.Animator). d2l's helpers are tests/corpus/modules/d2l/.
from d2l import tensorflow as d2l
import tensorflow as tf

net = tf.keras.models.Sequential([
    tf.keras.layers.Flatten(),
    tf.keras.layers.Dense(256, activation='relu'),
    tf.keras.layers.Dense(10)])

batch_size, lr, num_epochs = 256, 0.1, 10
loss = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
trainer = tf.keras.optimizers.SGD(learning_rate=lr)

train_iter, test_iter = d2l.load_data_fashion_mnist(batch_size)
d2l.train_ch3(net, train_iter, test_iter, loss, num_epochs, trainer)
