# A tf.function's traces as TensorFlow prints them (pretty_printed_concrete_signatures, a
# ConcreteFunction, its function_type), keyword-only arguments, `+` joining string tensors (eager
# and traced), and the GraphDef of a trace as the function guide walks it (.node[i].input/.name/.op).
import tensorflow as tf

s = tf.constant("ab")
print(s + s, tf.add(s, "c"), s + tf.constant(["x", "y"]), tf.constant(["x", "y"]) + "!")


@tf.function
def double(a):
    print("Tracing with", a)
    return a + a


print(double(tf.constant(1)))
print(double(tf.constant(1.1)))
print(double(tf.constant("a")))
print(double(tf.constant("b")))
print(double.pretty_printed_concrete_signatures())

double_strings = double.get_concrete_function(tf.constant("a"))
print(double_strings(tf.constant("q")))
print(double_strings)
print(double_strings.function_type)
for node in double_strings.graph.as_graph_def().node:
    print(f"{node.input} -> {node.name} ({node.op})")


@tf.function
def my_relu(x):
    return tf.maximum(0., x)


my_relu(tf.constant(5.5))
my_relu([1, -1])
my_relu(tf.constant([3., -3.]))
print(my_relu.pretty_printed_concrete_signatures())


@tf.function
def f(x, n=3, *, flag=True):
    return (x * 2.0, {"a": x}) if flag else x


concrete = f.get_concrete_function(tf.constant([1.0, 2.0]))
print(concrete.function_type)
print(f(tf.constant([1.0, 2.0]), flag=False))


@tf.function
def g(a, b):
    z = tf.matmul(a, b)
    return tf.nn.relu(z), z * a


graph_def = g.get_concrete_function(tf.ones([2, 2]), tf.ones([2, 2])).graph.as_graph_def()
for node in graph_def.node:
    print(node.name, node.op, list(node.input), repr(node.device))


@tf.function
def nothing():
    pass


nothing()
print(nothing.pretty_printed_concrete_signatures())
