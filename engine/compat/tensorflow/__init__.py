"""`import tensorflow as tf` inside a run: Dagscope's TensorFlow-compatible surface.

TF2 eager tensors are engine Tensors (eager.py); every op is one lowering onto the engine's op
registry, run now in eager mode or replayed onto the IR by a TF1 Session (ops.py, graph.py,
session.py); GradientTape is the engine's autograd (tape.py); tf.function captures a static graph
per input signature (function.py). A name outside this surface fails with UnsupportedError.
"""
from __future__ import annotations

from engine.compat.tensorflow import compat, errors, keras, linalg, math, nn, random, train  # noqa: F401
from engine.compat.tensorflow._surface import unsupported_names
from engine.compat.tensorflow.compat.v1 import (disable_eager_execution, enable_eager_execution,  # noqa: F401
                                                executing_eagerly, get_default_graph, reset_default_graph)
from engine.compat.tensorflow.dtypes import (DType, TensorShape, as_dtype, bool, double, float16,  # noqa: F401
                                             float32, float64, half, int8, int16, int32, int64, uint8)
from engine.compat.tensorflow.control_flow import cond, while_loop  # noqa: F401
from engine.compat.tensorflow.function import TensorSpec, function  # noqa: F401
from engine.compat.tensorflow.graph import Graph, Operation, placeholder  # noqa: F401
from engine.compat.tensorflow.module import Module  # noqa: F401
from engine.compat.tensorflow.array_ops import (concat, expand_dims, eye, fill, identity, one_hot,  # noqa: F401
                                                ones, ones_like, range, rank, reshape, shape, size, squeeze,
                                                stack, transpose, zeros, zeros_like)
from engine.compat.tensorflow.array_ops import print_ as print  # noqa: F401,A001
from engine.compat.tensorflow.ops import (Tensor, abs, add, add_n, argmax, argmin, cast, clip_by_value,  # noqa: F401
                                          constant, convert_to_tensor, cos, divide, equal, exp, floor, floordiv,
                                          greater, greater_equal, less, less_equal, log, logical_and,
                                          logical_not, logical_or, matmul, maximum, minimum, mod, multiply,
                                          negative, round, sin,
                                          not_equal, pow, reduce_logsumexp, reduce_max, reduce_mean, reduce_min,
                                          reduce_std, reduce_sum, reduce_variance, sigmoid, sign, sqrt, square,
                                          subtract, tanh, truediv, where)
from engine.compat.tensorflow.session import InteractiveSession, Session  # noqa: F401
from engine.compat.tensorflow.tape import GradientTape, UnconnectedGradients  # noqa: F401
from engine.compat.tensorflow.training import (global_variables, global_variables_initializer,  # noqa: F401
                                               gradients, group, trainable_variables, variables_initializer)
from engine.compat.tensorflow.variables import Variable  # noqa: F401

# TF1's top-level names for the random ops
random_normal, random_uniform, truncated_normal = random.normal, random.uniform, random.truncated_normal

__version__ = "2.16.1+dagscope"
newaxis = None

__getattr__ = unsupported_names("tf", globals())
