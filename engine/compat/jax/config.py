"""`jax.config`: the one CPU and 32-bit defaults, said truthfully."""
from __future__ import annotations

from engine.errors import UnsupportedError


class _Config:
    jax_enable_x64 = False
    jax_platform_name = "cpu"
    jax_disable_jit = False

    def update(self, name: str, value) -> None:
        if name in ("jax_platform_name", "jax_platforms") and str(value).lower() in ("cpu", ""):
            return
        if name == "jax_enable_x64" and not value:
            return
        raise UnsupportedError(f"jax.config.update({name!r}, {value!r}) is not supported by Dagscope: its JAX runs "
                               "on one CPU with JAX's 32-bit defaults (float32, int32)")

    def read(self, name: str):
        return getattr(self, name)


config = _Config()
