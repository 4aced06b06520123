"""`jax.errors`: the errors a trace raises when Python reads a traced value."""
from __future__ import annotations

from engine.compat.jax._surface import unsupported_names
from engine.compat.jax.tracing import (ConcretizationTypeError, NonConcreteBooleanIndexError,  # noqa: F401
                                       TracerBoolConversionError, TracerIntegerConversionError)

__getattr__ = unsupported_names("jax.errors", globals())
