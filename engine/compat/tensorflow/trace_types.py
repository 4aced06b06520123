"""`tf.types.experimental.TraceType`: how a program tells tf.function when two calls with objects of
its own may share a trace. An argument whose class has `__tf_tracing_type__(context)` is keyed by the
TraceType that returns (its `__eq__` and `__hash__`), not by the object's identity: a new object of the
same kind reuses the trace (the tf.function guide's FruitTraceType). TensorFlow also looks for a trace
whose types are supertypes of the call's (`is_subtype_of`); Dagscope's cache matches equal types
only, so such a call traces again, and says so in the trace's title.
"""
from __future__ import annotations

import abc
import types as _py

from engine.compat.tensorflow._surface import unsupported_names


class TraceType(abc.ABC):
    """The base a program's trace types derive from (TensorFlow's abstract methods, the same names)."""

    @abc.abstractmethod
    def is_subtype_of(self, other) -> bool:
        """Whether a trace made for `other` can serve a call of this type."""

    @abc.abstractmethod
    def most_specific_common_supertype(self, others):
        """The narrowest type every one of `others` and this one is a subtype of, or None."""

    @abc.abstractmethod
    def placeholder_value(self, placeholder_context=None):
        """The value the function's body sees for an argument of this type while it is traced."""

    @abc.abstractmethod
    def __eq__(self, other) -> bool:
        ...

    @abc.abstractmethod
    def __hash__(self) -> int:
        ...


def trace_type_of(value):
    """The TraceType a program's object gives itself, or None for every other value."""
    make = getattr(type(value), "__tf_tracing_type__", None)
    if make is None or isinstance(value, type):
        return None
    made = make(value, None)
    if not isinstance(made, TraceType):
        raise TypeError(f"__tf_tracing_type__ of {type(value).__name__} must return a tf.types.experimental."
                        f"TraceType, not {type(made).__name__}")
    return made


experimental = _py.ModuleType("tf.types.experimental", "tf.types.experimental: the TraceType protocol.")
experimental.TraceType = TraceType
experimental.__all__ = ["TraceType"]
experimental.__getattr__ = unsupported_names("tf.types.experimental", vars(experimental))

__all__ = ["experimental"]
__getattr__ = unsupported_names("tf.types", globals())
