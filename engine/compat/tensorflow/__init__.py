"""`import tensorflow as tf` inside a run: Dagscope's TensorFlow-compatible surface.

Where to read:
- context.py: per-run state, and why a TF1-session program runs in graph mode from its first line;
- eager.py, dtypes.py: TF2 eager tensors (engine Tensors with TF's surface), DType, TensorShape;
- ops.py, array_ops.py, nn.py: every op is one *lowering* onto the engine's op registry, run now
  (eager) or replayed onto the IR by a TF1 Session;
- graph.py, session.py, graph_control_flow.py, training.py: TF1 graphs, Session.run on the IR's
  interpreter, tf.cond/while_loop ops, variables, tf.gradients and the tf.train optimizers;
- variables.py, tape.py, module.py: tf.Variable and GradientTape on the engine's autograd;
- function.py, control_flow.py: tf.function (a graph per input signature, AutoGraph-style control
  flow by the engine's AST compiler), tf.cond / tf.while_loop;
- keras/: a minimal Keras for custom training loops.
A name outside this surface fails with UnsupportedError naming it.
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
