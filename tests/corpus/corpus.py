"""The corpus: public programs written by others (tests/corpus/torch/, tests/corpus/tensorflow/),
each run as a teacher would paste it.

Every program begins with where it came from and what was changed:

    # Source: owner/repo, path/in/repo.py
    #   at <commit> (<license>)
    # Modules: d2l/torch.py as d2l.torch          (optional: helper modules it imports)
    # Changed: ...

A run is one file (POST /api/run takes `code`, nothing else), so a program that imports a helper
module of its own (pytorch/examples' word_language_model imports `data` and `model`; d2l's chapters
`from d2l import torch as d2l`) gets a prelude: the helper's source, from tests/corpus/modules/,
registered in sys.modules under the name the program imports, before the program's first line.
The program's text itself is not touched. The same prelude runs before the real library when the
goldens are recorded, so both sides see the same helpers.
"""
from __future__ import annotations

import dataclasses
import pathlib
import re

HERE = pathlib.Path(__file__).resolve().parent
MODULES = HERE / "modules"
LANGUAGES = ("torch", "tensorflow", "jax")

_SOURCE = re.compile(r"^# Source: (?P<repo>[^,]+), (?P<path>\S+)\n#   at (?P<commit>[0-9a-f]{40}) \((?P<license>[^)]*)\)\n",
                     re.M)
_MODULES = re.compile(r"^# Modules: (?P<list>.+)$", re.M)


@dataclasses.dataclass(frozen=True)
class Program:
    language: str            # "torch", "tensorflow" or "jax": which library's goldens it is compared with
    name: str
    path: pathlib.Path

    @property
    def id(self) -> str:
        return f"{self.language}/{self.name}"

    @property
    def text(self) -> str:
        return self.path.read_text()

    def origin(self) -> dict:
        match = _SOURCE.match(self.text)
        if not match:
            raise ValueError(f"{self.path.name} does not begin with '# Source: repo, path' and its commit")
        return match.groupdict()

    def modules(self) -> list[tuple[str, pathlib.Path]]:
        """[(import name, file)] of the helper modules the program imports."""
        match = _MODULES.search(self.text)
        if not match:
            return []
        pairs = []
        for item in match["list"].split(","):
            file, _, name = item.strip().partition(" as ")
            pairs.append((name.strip(), MODULES / file.strip()))
        return pairs

    def run_source(self) -> str:
        """What is run: the helper modules' prelude (if any), then the program as it is."""
        return prelude(self.modules()) + self.text


def programs(language: str | None = None) -> list[Program]:
    languages = [language] if language else LANGUAGES
    return [Program(lang, p.stem, p) for lang in languages for p in sorted((HERE / lang).glob("*.py"))]


def prelude(modules: list[tuple[str, pathlib.Path]]) -> str:
    """Code that makes each helper importable by its name (parents first: `d2l` before `d2l.torch`)."""
    if not modules:
        return ""
    lines = ["import sys as _corpus_sys, types as _corpus_types",
             "def _corpus_module(_name, _source):",
             "    _module = _corpus_types.ModuleType(_name)",
             "    _module.__file__ = _name.replace('.', '/') + '.py'",
             "    _corpus_sys.modules[_name] = _module",
             "    _parent, _, _child = _name.rpartition('.')",
             "    if _parent:",
             "        if _parent not in _corpus_sys.modules:",
             "            _corpus_module(_parent, '')",
             "        setattr(_corpus_sys.modules[_parent], _child, _module)",
             "    exec(compile(_source, _module.__file__, 'exec'), _module.__dict__)"]
    for name, path in modules:
        lines.append(f"_corpus_module({name!r}, {path.read_text()!r})")
    lines.append("del _corpus_module, _corpus_sys, _corpus_types")
    return "\n".join(lines) + "\n"
