"""What every facade module shares: a module `__getattr__` that names an unsupported name clearly."""
from __future__ import annotations

import types

from engine.compat.scope import sentence
from engine.errors import UnsupportedAttributeError, UnsupportedError


def unsupported_names(module_path: str, namespace: dict):
    """A module-level `__getattr__` for `module_path` (e.g. "tf.nn") listing what does exist."""
    def __getattr__(name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        public = sorted(namespace.get("__all__") or public_names(namespace))
        raise UnsupportedAttributeError(f"{module_path}.{name} is not supported by Dagscope. "
                                        f"{sentence(f'{module_path}.{name}')} Supported names "
                                        f"in {module_path}: {', '.join(public)}.")
    return __getattr__


def keras_get(identifier, kind: type, namespace: dict, by_name: dict, noun: str, wrap, from_name):
    """Keras' `get` of losses and metrics: an instance of `kind` as it is; a subclass, or the name of
    one in `namespace`, instantiated; another callable through `wrap`; a name in `by_name` (any case)
    through `from_name(name)`; any other name refused, listing the supported ones."""
    if isinstance(identifier, kind):
        return identifier
    if isinstance(identifier, type) and issubclass(identifier, kind):
        return identifier()
    if callable(identifier):
        return wrap(identifier)
    key = str(identifier)
    named = namespace.get(key)
    if isinstance(named, type) and issubclass(named, kind):
        return named()
    if key.lower() not in by_name:
        raise UnsupportedError(f"{noun} {identifier!r} is not supported by Dagscope; supported: "
                               f"{', '.join(sorted(by_name))}")
    return from_name(key)


def public_names(namespace: dict) -> list[str]:
    """The names of a facade module that are TensorFlow's (not its helpers or implementation modules)."""
    return [n for n, v in namespace.items() if not n.startswith("_") and _is_public(v, n)]


# The facade's own implementation modules (TensorFlow has no tf.tape, tf.session ...).
_IMPLEMENTATION = {"context", "eager", "graph", "ops", "array_ops", "operators", "session", "tape", "variables",
                   "function", "training", "control_flow", "graph_control_flow", "module", "tensor_array",
                   "index_ops", "init_ops", "graph_def", "trace_types", "script_ops",
                   # keras/'s own modules
                   "base", "layers_core", "layers_conv", "layers_rnn", "philox", "trainer", "display"}


def _is_public(value, name: str = "") -> bool:
    """Part of the facade, not a helper it imported (numpy, `annotations`, this module). A module is
    judged by the name it is bound to (`tf.types` is trace_types.py; `tf.trace_types` is not TF's)."""
    module = getattr(value, "__module__", None) or getattr(value, "__name__", "")
    if type(value).__name__ == "_Feature" or module == __name__:
        return False
    if isinstance(value, types.ModuleType):
        leaf = name or value.__name__.rpartition(".")[2]
        return value.__name__.startswith("engine.compat.tensorflow") and leaf not in _IMPLEMENTATION
    if isinstance(value, (type, types.FunctionType)):       # a class or function the facade imported
        return module.startswith("engine.compat.tensorflow")
    return True
