"""The facades' loud edge: a module `__getattr__` that names the missing attribute and lists what
the facade does support, raised as UnsupportedError (error kind "unsupported" in the run record)."""
from __future__ import annotations

import __future__
import importlib
import importlib.util
import types

from engine.compat.scope import sentence
from engine.errors import UnsupportedAttributeError




def unsupported_getattr(module_name: str, namespace: dict):
    def __getattr__(name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        submodule = _submodule(namespace, name)
        if submodule is not None:
            return submodule
        public = sorted(n for n, v in namespace.items() if n in _SUBMODULES or not n.startswith("_")
                        and not isinstance(v, (types.ModuleType, __future__._Feature)))
        raise UnsupportedAttributeError(f"{module_name}.{name} is not supported by Dagscope. "
                                         f"{sentence(f'{module_name}.{name}')} "
                                         f"Supported names in {module_name}: {', '.join(public)}.")
    return __getattr__


def _submodule(namespace: dict, name: str):
    """A facade submodule not imported yet (`import torch` then `torch.jit.script`), as PyTorch's
    submodules are attributes of the package."""
    package = namespace.get("__name__", "")
    if not name.isidentifier() or "__path__" not in namespace:
        return None
    if importlib.util.find_spec(f"{package}.{name}") is None:
        return None
    module = importlib.import_module(f"{package}.{name}")
    namespace[name] = module
    return module


# Submodules worth listing among a facade's names (helper imports such as `np` are not).
_SUBMODULES = {"nn", "functional", "init", "utils", "optim", "autograd", "data", "lr_scheduler", "cuda",
               "backends", "jit", "function", "linalg", "accelerator", "onnx", "distributed", "parallel", "modules", "serialization"}

