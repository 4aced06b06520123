"""`tf.math`: elementwise math and reductions (the same ops as the top-level names)."""
from __future__ import annotations

from engine.compat.tensorflow._surface import unsupported_names
from engine.compat.tensorflow.ops import (abs, add, add_n, argmax, argmin, divide, equal, exp, greater,  # noqa: F401
                                          greater_equal, less, less_equal, log, logical_not, maximum, minimum,
                                          multiply, negative, not_equal, pow, reciprocal, reduce_logsumexp,
                                          reduce_max, reduce_mean, reduce_min, reduce_std, reduce_sum,
                                          reduce_variance, rsqrt, sigmoid, sign, softplus, sqrt, square,
                                          squared_difference, subtract, tanh, truediv)

__getattr__ = unsupported_names("tf.math", globals())
