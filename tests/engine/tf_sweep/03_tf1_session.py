# title: TensorFlow 1.x: build the graph, then run it in a Session
# title_zh: TensorFlow 1.x：先建图，再用 Session 执行
# concept: static graph, define-then-run
# Nothing is computed at tf.add: it only adds a node. sess.run executes the graph.
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

# build the graph
a = tf.constant(2)
b = tf.constant(3)
c = tf.add(a, b)

# run the graph
with tf.compat.v1.Session() as sess:
    result = sess.run(c)
    print(result)  # 5
