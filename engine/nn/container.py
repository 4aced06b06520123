"""Containers: Sequential (calls its modules in order), ModuleList (a list that registers them) and
ModuleDict (a dict that does), with PyTorch's list and dict methods."""
from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from itertools import chain

from engine.nn.module import Module, _addindent


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


def _index(idx, n: int) -> int:
    idx = int(idx)
    if not -n <= idx < n:
        raise IndexError(f"index {idx} is out of range")
    return idx % n
