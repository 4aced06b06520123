"""`tf.math`: elementwise math and reductions (the same ops as the top-level names)."""
from __future__ import annotations

from engine.compat.tensorflow._surface import unsupported_names
from engine.compat.tensorflow.ops import (abs, add, add_n, argmax, argmin, ceil, cos, divide, equal, exp,  # noqa: F401
                                          floor, floordiv, floormod, greater, greater_equal, less, less_equal,
                                          log, logical_and, logical_not, logical_or, logical_xor, maximum,
                                          minimum, mod, multiply, negative, not_equal, pow, reciprocal,
                                          reduce_logsumexp, reduce_max, reduce_mean, reduce_min, reduce_std,
                                          reduce_sum, reduce_variance, round, rsqrt, sigmoid, sign, sin,
                                          softplus, sqrt, square, squared_difference, subtract, tanh, truediv)

__getattr__ = unsupported_names("tf.math", globals())
