"""`jax.config`: jax_enable_x64 (64-bit defaults for the run), and the one CPU, said truthfully."""
from __future__ import annotations

from engine.compat.jax.array import set_x64, x64
from engine.errors import UnsupportedError


class _Config:
    jax_platform_name = "cpu"
    jax_disable_jit = False

    @property
    def jax_enable_x64(self) -> bool:
        return x64()

    def update(self, name: str, value) -> None:
        if name in ("jax_platform_name", "jax_platforms") and str(value).lower() in ("cpu", ""):
            return
        if name == "jax_enable_x64":         # 64-bit defaults for the rest of this run, as in JAX
            set_x64(bool(value))
            return
        raise UnsupportedError(f"jax.config.update({name!r}, {value!r}) is not supported by Dagscope: its JAX runs "
                               "on one CPU with JAX's 32-bit defaults (float32, int32)")

    def read(self, name: str):
        return getattr(self, name)


config = _Config()
