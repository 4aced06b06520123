"""`tf.Module`: a container whose variables (and sub-modules' variables) are found through its
attributes — what TF2 models built by hand use for `trainable_variables`."""
from __future__ import annotations

from engine.compat.tensorflow.variables import Variable


class Module:
    def __init__(self, name=None):
        self._module_name = name or _snake(type(self).__name__)

    @property
    def name(self) -> str:
        return self._module_name

    def _flatten(self, want, seen: set) -> list:
        found = []
        for key in sorted(vars(self)):                     # TensorFlow walks attributes by name
            for item in _items(vars(self)[key]):
                if id(item) in seen:
                    continue
                seen.add(id(item))
                if want(item):
                    found.append(item)
                if isinstance(item, Module):
                    found.extend(item._flatten(want, seen))
        return found

    @property
    def variables(self) -> tuple:
        return tuple(self._flatten(lambda x: isinstance(x, Variable), set()))

    @property
    def trainable_variables(self) -> tuple:
        return tuple(v for v in self.variables if v.trainable)

    @property
    def submodules(self) -> tuple:
        return tuple(self._flatten(lambda x: isinstance(x, Module), set()))


def _items(value) -> list:
    if isinstance(value, dict):
        return [v for k in sorted(value) for v in _items(value[k])]
    if isinstance(value, (list, tuple)):
        return [v for x in value for v in _items(x)]
    return [value]


def _snake(name: str) -> str:
    return "".join("_" + c.lower() if c.isupper() and i else c.lower() for i, c in enumerate(name))
