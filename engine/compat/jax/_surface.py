"""What every module of the JAX facade shares: a module `__getattr__` that names an unsupported name."""
from __future__ import annotations

import types

from engine.compat.scope import sentence
from engine.errors import UnsupportedAttributeError

_PREFIX = {"jnp": "jax.numpy"}       # how the scope table spells a name the program wrote as jnp.x


def unsupported_names(module_path: str, namespace: dict):
    """A module-level `__getattr__` for `module_path` (e.g. "jax.lax") listing what does exist."""
    def __getattr__(name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        public = sorted(n for n, v in namespace.items() if not n.startswith("_") and _is_public(v))
        scoped = f"{_PREFIX.get(module_path, module_path)}.{name}"
        raise UnsupportedAttributeError(f"{module_path}.{name} is not supported by Dagscope. {sentence(scoped)} "
                                        f"Supported names in {module_path}: {', '.join(public)}.")
    return __getattr__


_IMPLEMENTATION = {"array", "tracing", "jaxpr", "transforms", "jit_function", "control_flow", "pytree"}


def _is_public(value) -> bool:
    module = getattr(value, "__module__", None) or getattr(value, "__name__", "")
    if type(value).__name__ == "_Feature":          # `from __future__ import annotations`
        return False
    if isinstance(value, types.ModuleType):
        leaf = value.__name__.rpartition(".")[2]
        return value.__name__.startswith("engine.compat.jax") and leaf not in _IMPLEMENTATION
    if isinstance(value, (type, types.FunctionType)):
        return module.startswith("engine.compat.jax") and module != __name__
    return True
