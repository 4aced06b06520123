# tf.function's concrete functions as the tf.function guide uses them: get_concrete_function on tensors
# and on tf.TensorSpecs (a known shape, an unknown one), calls by position and by keyword, TensorFlow's
# refusals (a Python value the trace fixed, a missing argument, another dtype), inference_fn, a
# program's own tf.types.experimental.TraceType keying its objects, and tf.data.Dataset.from_generator.
import re

import tensorflow as tf


@tf.function
def double(a):
    print("Tracing with", a)
    return a + a


@tf.function
def power(a, b):
    return a ** b


strings = double.get_concrete_function(tf.constant("a"))
print(strings(tf.constant("a")), strings(a=tf.constant("b")))
from_spec = double.get_concrete_function(tf.TensorSpec(shape=[], dtype=tf.string))
print(from_spec(tf.constant("c")))
print(from_spec)
print(from_spec.function_type)
print(strings.inference_fn(tf.constant("d")))
square = power.get_concrete_function(a=tf.TensorSpec(None, tf.float32), b=2)
print(square)
print(square(tf.constant(10.0)), square(tf.constant([1.0, 2.0])), square(a=tf.constant(3.0)))
for call in (lambda: square(tf.constant(10.0), b=3), lambda: strings(b=tf.constant("x")), lambda: strings()):
    try:
        call()
    except TypeError as e:
        print("TypeError:", e)
for call in (lambda: strings(tf.constant(1)), lambda: square(tf.constant(1))):
    try:
        call()
    except tf.errors.InvalidArgumentError as e:
        print(type(e), re.sub(r"(__inference_[a-z]+)_\d+", r"\1", str(e)))   # (TF numbers its functions)


class FruitTraceType(tf.types.experimental.TraceType):
    def __init__(self, fruit):
        self.fruit_type = type(fruit)
        self.fruit_value = fruit

    def is_subtype_of(self, other):
        return type(other) is FruitTraceType and self.fruit_type is other.fruit_type

    def most_specific_common_supertype(self, others):
        return self if all(self == other for other in others) else None

    def placeholder_value(self, placeholder_context=None):
        return self.fruit_value

    def __eq__(self, other):
        return type(other) is FruitTraceType and self.fruit_type == other.fruit_type

    def __hash__(self):
        return hash(self.fruit_type)


class Fruit:
    def __tf_tracing_type__(self, context):
        return FruitTraceType(self)


class Apple(Fruit):
    flavor = tf.constant([1, 2])


class Mango(Fruit):
    flavor = tf.constant([3, 4])


@tf.function
def mixed(a, b):
    print("Tracing", type(a).__name__, type(b).__name__)
    return a.flavor + b.flavor


print(mixed(Apple(), Mango()), mixed(Apple(), Mango()), mixed(Mango(), Mango()))
print(mixed.experimental_get_tracing_count())


class Incomplete(tf.types.experimental.TraceType):
    pass


try:
    Incomplete()
except TypeError as e:
    print("TypeError:", e)

pairs = tf.data.Dataset.from_generator(lambda: [(1, 2), (3, 4)], (tf.int32, tf.float32))
print(pairs.element_spec)
print([(int(x), float(y)) for x, y in pairs], [(int(x), float(y)) for x, y in pairs])
shaped = tf.data.Dataset.from_generator(lambda: iter([[1.0, 2.0]]), tf.float32, output_shapes=[2])
print(shaped.element_spec, list(shaped.as_numpy_iterator()), shaped.cardinality())
signed = tf.data.Dataset.from_generator(lambda: ({"x": i} for i in range(3)),
                                        output_signature={"x": tf.TensorSpec((), tf.int64)})
print(signed.element_spec, [int(d["x"]) for d in signed])
