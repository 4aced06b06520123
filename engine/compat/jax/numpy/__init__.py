"""`import jax.numpy as jnp` inside a run: the functions of _core.py, and jnp.linalg."""
from __future__ import annotations

from engine.compat.jax._surface import unsupported_names
from engine.compat.jax.numpy import linalg  # noqa: F401
from engine.compat.jax.numpy._core import *  # noqa: F401,F403
from engine.compat.jax.numpy._core import abs, all, any, max, min, round, sum  # noqa: F401  (builtins' names)

__getattr__ = unsupported_names("jnp", globals())
