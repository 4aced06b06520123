"""`tf.errors`: TensorFlow's runtime error classes (what a pasted `except tf.errors.X` catches)."""
from __future__ import annotations


class OpError(Exception):
    def __init__(self, message: str = "", node_def=None, op=None, error_code=None):
        super().__init__(message)
        self.message = message
        self.op = op
        self.node_def = node_def
        self.error_code = error_code


class InvalidArgumentError(OpError):
    """An op got an input it cannot accept (wrong dtype, shape, or a missing feed)."""


def kernel_error(tf_type: str, message: str) -> InvalidArgumentError:
    """An eager op's InvalidArgumentError worded as TensorFlow's kernel words it (guides print it)."""
    return InvalidArgumentError(f"{{{{function_node __wrapped__{tf_type}_device_/job:localhost/replica:0/task:0/"
                                f"device:CPU:0}}}} {message} [Op:{tf_type}]")


class FailedPreconditionError(OpError):
    """An op ran before what it needs exists (e.g. an uninitialized variable)."""


class NotFoundError(OpError):
    pass


class OutOfRangeError(OpError):
    pass


class UnimplementedError(OpError):
    pass


# Printed as TensorFlow prints them (`<class 'tensorflow.python.framework.errors_impl.InvalidArgumentError'>`,
# a traceback's last line), not as the facade's module path.
for _error in (OpError, InvalidArgumentError, FailedPreconditionError, NotFoundError, OutOfRangeError,
               UnimplementedError):
    _error.__module__ = "tensorflow.python.framework.errors_impl"

from engine.compat.tensorflow._surface import unsupported_names  # noqa: E402

__getattr__ = unsupported_names("tf.errors", globals())
