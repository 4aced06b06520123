"""Containers: Sequential (calls its modules in order), ModuleList (a list that registers them),
ModuleDict (a dict that does), ParameterList and ParameterDict (the same for parameters), with
PyTorch's list and dict methods."""
from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Mapping
from itertools import chain

from engine.nn.module import Module, _addindent
from engine.nn.parameter import Parameter
from engine.tensor import Tensor


class Sequential(Module):
    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, module in args[0].items():
                self.add_module(name, module)
        else:
            for i, module in enumerate(args):
                self.add_module(str(i), module)

    def forward(self, input):
        for module in self._modules.values():
            input = module(input)
        return input

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return Sequential(OrderedDict(list(self._modules.items())[idx]))
        return list(self._modules.values())[_index(idx, len(self))]

    def __setitem__(self, idx, module) -> None:
        key = list(self._modules)[_index(idx, len(self))]
        self.add_module(key, module)

    def __delitem__(self, idx) -> None:
        keys = list(self._modules)
        for key in (keys[idx] if isinstance(idx, slice) else [keys[_index(idx, len(self))]]):
            del self._modules[key]
        # PyTorch renumbers the remaining modules so the keys stay 0..n-1.
        items = list(self._modules.values())
        self._modules.clear()
        for i, m in enumerate(items):
            self.add_module(str(i), m)

    def append(self, module) -> "Sequential":
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules) -> "Sequential":
        for m in modules:
            self.append(m)
        return self

    def insert(self, index: int, module) -> "Sequential":
        items = list(self._modules.values())
        items.insert(index, module)
        self._modules.clear()
        for i, m in enumerate(items):
            self.add_module(str(i), m)
        return self

    def pop(self, key):
        module = self[key]
        del self[key]
        return module

    def __add__(self, other) -> "Sequential":
        if not isinstance(other, Sequential):
            raise ValueError(f"add operator supports only objects of Sequential class, but {type(other)} is given.")
        return Sequential().extend(chain(self, other))

    def __iadd__(self, other) -> "Sequential":
        if not isinstance(other, Sequential):
            raise ValueError(f"add operator supports only objects of Sequential class, but {type(other)} is given.")
        return self.extend(list(other))


class ModuleList(Module):
    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return ModuleList(list(self._modules.values())[idx])
        return self._modules[str(_index(idx, len(self)))]

    def __setitem__(self, idx, module) -> None:
        self.add_module(str(_index(idx, len(self))), module)

    def __delitem__(self, idx) -> None:
        items = list(self._modules.values())
        del items[idx if isinstance(idx, slice) else _index(idx, len(self))]
        self._renumber(items)

    def append(self, module) -> "ModuleList":
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules) -> "ModuleList":
        if not isinstance(modules, Iterable):
            raise TypeError(f"ModuleList.extend should be called with an iterable, but got {type(modules).__name__}")
        for m in modules:
            self.append(m)
        return self

    __iadd__ = extend

    def __add__(self, other) -> "ModuleList":
        return ModuleList(list(chain(self, other)))

    def insert(self, index: int, module) -> None:
        items = list(self._modules.values())
        items.insert(index, module)
        self._renumber(items)

    def pop(self, key):
        module = self[key]
        del self[key]
        return module

    def _renumber(self, items) -> None:
        # PyTorch keeps a ModuleList's keys 0..n-1 after an insertion or a deletion.
        self._modules.clear()
        for i, m in enumerate(items):
            self.add_module(str(i), m)

    def __repr__(self) -> str:
        """PyTorch's ModuleList repr: runs of identical modules are folded as `(0-11): 12 x Block(...)`."""
        reprs = [repr(m) for m in self]
        if not reprs:
            return self._get_name() + "()"
        runs = [[0, 0, reprs[0]]]
        for i, r in enumerate(reprs[1:], 1):
            if r == runs[-1][2]:
                runs[-1][1] = i
            else:
                runs.append([i, i, r])
        lines = []
        for start, end, r in runs:
            text = f"({start}): {r}" if start == end else f"({start}-{end}): {end - start + 1} x {r}"
            lines.append(_addindent(text, 2))
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


class ModuleDict(Module):
    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            for key, m in (modules.items() if hasattr(modules, "items") else modules):
                self.add_module(key, m)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module) -> None:
        self.add_module(key, module)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key) -> bool:
        return key in self._modules

    def keys(self):
        return self._modules.keys()

    def values(self):
        return self._modules.values()

    def items(self):
        return self._modules.items()

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def pop(self, key: str) -> Module:
        module = self[key]
        del self[key]
        return module

    def clear(self) -> None:
        self._modules.clear()

    def update(self, modules) -> None:
        for key, m in (modules.items() if hasattr(modules, "items") else modules):
            self[key] = m


class ParameterList(Module):
    """A list whose tensors are registered as parameters named "0", "1"... (a plain tensor put in
    becomes a Parameter; other objects are kept as they are)."""

    def __init__(self, values=None):
        super().__init__()
        self._size = 0
        if values is not None:
            self.extend(values)

    def __len__(self) -> int:
        return self._size

    def __iter__(self):
        return iter([self[i] for i in range(len(self))])

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            out = type(self)()
            for i in range(*idx.indices(len(self))):
                out.append(self[i])
            return out
        return getattr(self, str(_index(idx, len(self))))

    def __setitem__(self, idx, value) -> None:
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, str(_index(idx, len(self))), value)

    def append(self, value) -> "ParameterList":
        self._size += 1
        self[self._size - 1] = value
        return self

    def extend(self, values) -> "ParameterList":
        if not isinstance(values, Iterable) or isinstance(values, Tensor):   # never unpack a tensor
            raise TypeError(f"ParameterList.extend should be called with an iterable, but got {type(values).__name__}")
        for value in values:
            self.append(value)
        return self

    __iadd__ = extend

    def extra_repr(self) -> str:
        return "\n".join(f"  ({i}): " + _describe(p, str(p.dtype) if isinstance(p, Tensor) else "")
                         for i, p in enumerate(self))

    def __call__(self, *args, **kwargs):
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    """A dict from strings to parameters (a plain tensor put in becomes a Parameter). Updating from a
    plain dict adds its keys in sorted order, as PyTorch does; an OrderedDict keeps its order."""

    def __init__(self, parameters=None):
        super().__init__()
        self._keys: dict = {}
        if parameters is not None:
            self.update(parameters)

    @staticmethod
    def _key_to_attr(key) -> str:
        if not isinstance(key, str):
            raise TypeError("Index given to ParameterDict cannot be used as a key as it is not a string (type is "
                            f"'{type(key).__name__}'). Open an issue on github if you need non-string keys.")
        return key

    def __getitem__(self, key):
        return getattr(self, self._key_to_attr(key))

    def __setitem__(self, key, value) -> None:
        self._keys[key] = None
        attr = self._key_to_attr(key)
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, attr, value)

    def __delitem__(self, key) -> None:
        del self._keys[key]
        delattr(self, self._key_to_attr(key))

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __reversed__(self):
        return reversed(self._keys)

    def __contains__(self, key) -> bool:
        return key in self._keys

    def keys(self):
        return self._keys.keys()

    def items(self):
        return ((k, self[k]) for k in self._keys)

    def values(self):
        return (self[k] for k in self._keys)

    def get(self, key, default=None):
        return self[key] if key in self else default

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def pop(self, key):
        value = self[key]
        del self[key]
        return value

    def popitem(self):
        key = next(reversed(self._keys))
        return key, self.pop(key)

    def clear(self) -> None:
        for key in list(self._keys):
            del self[key]

    def copy(self) -> "ParameterDict":
        return ParameterDict(OrderedDict((k, self[k]) for k in self._keys))

    def update(self, parameters) -> None:
        if not isinstance(parameters, Iterable):
            raise TypeError("ParametersDict.update should be called with an iterable of key/value pairs, but got "
                            + type(parameters).__name__)
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            pairs = list(parameters.items())
        elif isinstance(parameters, Mapping):
            pairs = sorted(parameters.items())
        else:
            pairs = []
            for j, pair in enumerate(parameters):
                if not isinstance(pair, Iterable):
                    raise TypeError(f"ParameterDict update sequence element #{j} should be Iterable; is"
                                    + type(pair).__name__)
                if len(pair) != 2:
                    raise ValueError(f"ParameterDict update sequence element #{j} has length {len(pair)}; "
                                     "2 is required")
                pairs.append(pair)
        for key, value in pairs:
            self[key] = value

    def extra_repr(self) -> str:
        # (ParameterDict names the tensor type where ParameterList names the dtype, as in PyTorch.)
        return "\n".join(f"  ({k}): " + _describe(p, p.type() if isinstance(p, Tensor) else "")
                         for k, p in self.items())

    def __call__(self, input):
        raise RuntimeError("ParameterDict should not be called.")


def _describe(value, type_name: str) -> str:
    if not isinstance(value, Tensor):
        return f"Object of type: {type(value).__name__}"
    kind = "Parameter" if isinstance(value, Parameter) else "Tensor"
    return f"{kind} containing: [{type_name} of size {'x'.join(str(d) for d in value.shape)}]"


def _index(idx, n: int) -> int:
    idx = int(idx)
    if not -n <= idx < n:
        raise IndexError(f"index {idx} is out of range")
    return idx % n
