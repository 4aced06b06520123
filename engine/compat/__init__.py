"""Compatibility facades: inside a run, `import torch` / `import tensorflow` / `import dagscope`
resolve to Dagscope's engine. An unknown submodule fails with a clear `unsupported` error."""
from __future__ import annotations

import contextlib
import importlib
import importlib.abc
import importlib.util
import sys

from engine.compat.scope import LIBRARIES, sentence
from engine.errors import UnsupportedError
from engine.format import reset_printoptions

ALIASES = {
    "torch": "engine.compat.torch",
    "tensorflow": "engine.compat.tensorflow",
    "keras": "engine.compat.tensorflow.keras",     # Keras 3's own package is tf.keras (TF 2.16+)
    "jax": "engine.compat.jax",
    "optax": "engine.compat.jax.optax",         # sgd, adam and their gradient transformations
    "dagscope": "engine",
}


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, real: str):
        self.real = real

    def create_module(self, spec):
        return importlib.import_module(self.real)

    def exec_module(self, module) -> None:
        pass


class _AliasFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path, target=None):
        top, _, rest = fullname.partition(".")
        if top not in ALIASES:
            # a library the table knows (torchvision, matplotlib, jax...): say why it is not here,
            # rather than a bare ModuleNotFoundError or the real library installed beside the engine
            if top in LIBRARIES:
                raise UnsupportedError(f"`import {fullname}`: Dagscope has no {top}. {sentence(fullname)}")
            return None
        real = ALIASES[top] + ("." + rest if rest else "")
        try:
            found = importlib.util.find_spec(real)
        except ModuleNotFoundError:
            found = None
        if found is None:
            raise UnsupportedError(
                f"`import {fullname}`: Dagscope runs a subset of {top} and has no module {fullname}. "
                f"{sentence(fullname)} Supported modules: {', '.join(supported_modules(top))}.")
        return importlib.util.spec_from_loader(fullname, _AliasLoader(real))


def supported_modules(top: str) -> list[str]:
    import pkgutil  # only for this message: every run imports engine.compat, which stays without it
    base = importlib.import_module(ALIASES[top])
    names = [top]
    if hasattr(base, "__path__"):
        for info in pkgutil.walk_packages(base.__path__, prefix=top + "."):
            if not info.name.split(".")[-1].startswith("_"):
                names.append(info.name)
    return names


_FINDER = _AliasFinder()


@contextlib.contextmanager
def installed():
    """Make the aliases importable for the duration of a run, then remove every trace of them.

    A real torch or tensorflow already imported (a test process using PyTorch as an oracle) is
    set aside for the run and put back after it, so each side sees its own."""
    def aliased() -> list[str]:
        return [n for n in sys.modules if n.partition(".")[0] in ALIASES or n.partition(".")[0] in LIBRARIES]
    real = {n: sys.modules.pop(n) for n in aliased()}
    sys.meta_path.insert(0, _FINDER)
    try:
        yield
    finally:
        reset_printoptions()      # torch.set_printoptions in one run must not reach the next
        sys.meta_path.remove(_FINDER)
        for name in aliased():
            del sys.modules[name]
        sys.modules.update(real)
