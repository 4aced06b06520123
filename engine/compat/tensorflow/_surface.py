"""What every facade module shares: a module `__getattr__` that names an unsupported name clearly."""
from __future__ import annotations

from engine.errors import UnsupportedError


def unsupported_names(module_path: str, namespace: dict):
    """A module-level `__getattr__` for `module_path` (e.g. "tf.nn") listing what does exist."""
    def __getattr__(name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        public = sorted(n for n, v in namespace.items() if not n.startswith("_") and not _is_import(v))
        raise UnsupportedError(f"{module_path}.{name} is not supported by Dagscope. Supported names in "
                               f"{module_path}: {', '.join(public)}.")
    return __getattr__


def _is_import(value) -> bool:
    # `from __future__ import annotations` leaves a feature object in the namespace
    return type(value).__name__ == "_Feature"
