"""`tf.compat.v1`: the TF1 API — graphs, placeholders, sessions, and the switch out of eager mode.
Names not defined here resolve to the top-level `tf` names (TF1 had the same math ops)."""
from __future__ import annotations

from engine.compat.tensorflow import _api, ops
from engine.compat.tensorflow.context import (disable_eager_execution, enable_eager_execution,  # noqa: F401
                                              executing_eagerly)
from engine.compat.tensorflow.graph import get_default_graph, placeholder, reset_default_graph  # noqa: F401
from engine.compat.tensorflow.session import InteractiveSession, Session, get_default_session  # noqa: F401
from engine.errors import UnsupportedAttributeError


def disable_v2_behavior() -> None:
    disable_eager_execution()


def enable_v2_behavior() -> None:
    enable_eager_execution()


def _deprecated(new: str, old: str, new_value, old_value):
    """TF1's renamed arguments (reduction_indices -> axis, keep_dims -> keepdims): either spelling, not both."""
    if old_value is not None:
        if new_value is not None:
            raise ValueError(f"Cannot specify both '{old}' and '{new}'.")
        return old_value
    return new_value


def _v1_reduce(reduce):
    def op(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
        axis = _deprecated("axis", "reduction_indices", axis, reduction_indices)
        keepdims = _deprecated("keepdims", "keep_dims", keepdims, keep_dims)
        return reduce(input_tensor, axis=axis, keepdims=bool(keepdims), name=name)
    return op


def _v1_arg(arg):
    def op(input, axis=None, name=None, dimension=None, output_type=_api.int64):  # noqa: A002
        return arg(input, axis=_deprecated("axis", "dimension", axis, dimension), output_type=output_type, name=name)
    return op


reduce_sum, reduce_mean, reduce_max, reduce_min, reduce_logsumexp = (
    _v1_reduce(f) for f in (ops.reduce_sum, ops.reduce_mean, ops.reduce_max, ops.reduce_min, ops.reduce_logsumexp))
argmax, argmin = _v1_arg(ops.argmax), _v1_arg(ops.argmin)


# TF1's initializers take other arguments and defaults than TF2's (random_normal_initializer(stddev=1.0,
# dtype=...)), and seeded ones draw another stream: not TF2's names under TF1's
_TF1_INITIALIZERS = frozenset({"zeros_initializer", "ones_initializer", "constant_initializer",
                               "random_normal_initializer", "random_uniform_initializer", "initializers"})


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(name)
    if name in _TF1_INITIALIZERS:
        raise UnsupportedAttributeError(f"tf.compat.v1.{name} is not supported by Dagscope (TF1's initializers "
                                        f"differ from TF2's tf.{name}, which is supported)")
    return getattr(_api, name)
