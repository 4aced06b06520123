"""`jax.scipy`: special functions (scipy/special.py)."""
from __future__ import annotations

from engine.compat.jax._surface import unsupported_names
from engine.compat.jax.scipy import special  # noqa: F401

__getattr__ = unsupported_names("jax.scipy", globals())
