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


class FailedPreconditionError(OpError):
    """An op ran before what it needs exists (e.g. an uninitialized variable)."""


class NotFoundError(OpError):
    pass


class OutOfRangeError(OpError):
    pass


class UnimplementedError(OpError):
    pass


from engine.compat.tensorflow._surface import unsupported_names  # noqa: E402

__getattr__ = unsupported_names("tf.errors", globals())
