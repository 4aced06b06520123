"""The TF2 top-level namespace, `tf.<name>`, except `tf.compat`: what `import tensorflow as tf` gives
(the package's __init__ re-exports it) and what `tf.compat.v1` / `tf.compat.v2` fall back to, as
TensorFlow's own `_api/v2` modules are. It sits above every implementation module and below
`compat`, so the compat modules reach the top-level names without importing the package itself.
"""
from __future__ import annotations

from engine.compat.tensorflow import (autograph, config, data, errors, image, io, keras, linalg,  # noqa: F401
                                      math, nest, nn, ragged, random, sparse, strings, summary, train)
from engine.compat.tensorflow import trace_types as types  # noqa: F401
from engine.compat.tensorflow.config import device  # noqa: F401
from engine.compat.tensorflow._surface import public_names, unsupported_names
from engine.compat.tensorflow.context import (disable_eager_execution, enable_eager_execution,  # noqa: F401
                                              executing_eagerly)
from engine.compat.tensorflow.dtypes import (DType, TensorShape, as_dtype, bool, complex64, complex128,  # noqa: F401
                                             double, float16, float32, float64, half, int8, int16, int32, int64,
                                             string, uint8)
from engine.compat.tensorflow.control_flow import cond, while_loop  # noqa: F401
from engine.compat.tensorflow.function import TensorSpec, function, init_scope  # noqa: F401
from engine.compat.tensorflow.script_ops import py_function  # noqa: F401
from engine.compat.tensorflow.graph import (Graph, Operation, get_default_graph, placeholder,  # noqa: F401
                                            reset_default_graph)
from engine.compat.tensorflow.init_ops import (constant_initializer, ones_initializer,  # noqa: F401
                                               random_normal_initializer, random_uniform_initializer,
                                               zeros_initializer)
from engine.compat.tensorflow.module import Module  # noqa: F401
from engine.compat.tensorflow.ragged import RaggedTensor  # noqa: F401
from engine.compat.tensorflow.sparse import SparseTensor  # noqa: F401
from engine.compat.tensorflow.array_ops import (broadcast_to, concat, expand_dims, eye, fill, identity, linspace,  # noqa: F401
                                                one_hot, ones, ones_like, range, rank, reshape, shape, size, slice,
                                                squeeze, stack, stop_gradient, strided_slice, transpose, zeros,
                                                zeros_like)
from engine.compat.tensorflow.index_ops import (gather, gather_nd, scatter_nd, tensor_scatter_nd_add,  # noqa: F401
                                                tensor_scatter_nd_max, tensor_scatter_nd_min, tensor_scatter_nd_sub,
                                                tensor_scatter_nd_update)
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
from engine.compat.tensorflow.tensor_array import TensorArray  # noqa: F401
from engine.compat.tensorflow.training import (global_variables, global_variables_initializer,  # noqa: F401
                                               gradients, group, trainable_variables, variables_initializer)
from engine.compat.tensorflow.variables import Variable  # noqa: F401

# TF 2.21's aliases of Keras' modules (TensorFlow's lazy loaders of tf.keras.optimizers / .initializers)
optimizers, initializers = keras.optimizers, keras.initializers

# TF1's top-level names for the random ops
random_normal, random_uniform, truncated_normal = random.normal, random.uniform, random.truncated_normal

__version__ = "2.16.1+dagscope"
newaxis = None

__all__ = public_names(globals())
__getattr__ = unsupported_names("tf", globals())
