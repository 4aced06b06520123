"""Standard modules a run imports that the zygote did not: compiled from the installation's source.

Python's own loader would read the module's cached bytecode (`__pycache__/*.pyc`) and turn it into
code with `marshal.loads`, which the policy refuses for anything a run starts: raw bytecode is
how a program would hand the interpreter code no compiler made. So a run could only import the
standard modules the zygote had loaded, and `import argparse` failed naming neither.

This finder sits in front of Python's and answers only for pure-Python modules whose file lies in
the standard library folder of the Python installation (never its site-packages, never a folder
a run can write: the scratch folder, `/tmp`, a path the run put on `sys.path`). It compiles their
`.py` source with `compile` and never reads a `.pyc`, so nothing a run wrote can become code
through it, and it gives a run nothing it could not do itself: read that source (the installation
is readable) and `exec` it. Extension modules (`lib-dynload/*.so`) load as before; anything else
goes to Python's own finders, where a `.pyc` is still refused.

The most used modules are preloaded by the zygote (zygote.PRELOAD_STDLIB), so this is the path
only for the rest, at the cost of compiling their source once per run.
"""
from __future__ import annotations

import os
import sys
import sysconfig
from importlib.machinery import PathFinder, SourceFileLoader


def stdlib_root() -> str:
    return os.path.realpath(sysconfig.get_path("stdlib"))   # a venv's too: the base installation's


def _beneath(path: str, root: str) -> bool:
    return path == root or path.startswith(root + os.sep)


class SourceOnlyLoader(SourceFileLoader):
    """A standard module's code compiled from its source: no bytecode cache read or written.

    A run can reach this class (`module.__spec__.loader`) and make one with any path, so the
    path is checked again here, resolved: it compiles only files of the standard library, under
    their real names (a path spelled through Dagscope's folder into the scratch folder must not
    give the run's own code a trusted file name)."""

    def get_code(self, fullname):
        real = os.path.realpath(self.path)
        if real != self.path or not _covered(real):
            raise ImportError(f"{self.path} is not a file of the standard library", name=fullname)
        with open(real, "rb") as file:
            source = file.read()
        return compile(source, real, "exec", dont_inherit=True)

    def set_data(self, path, data, *, _mode=0o666):
        return None   # never write a .pyc (the folder is read-only to a run anyway)


_ROOT = stdlib_root()
_EXCLUDED = tuple(os.path.join(_ROOT, name) for name in ("site-packages", "dist-packages"))


def _covered(real: str) -> bool:
    """A resolved path of a pure-Python standard module (the installation's, not its site-packages)."""
    return real.endswith(".py") and _beneath(real, _ROOT) and not any(_beneath(real, x) for x in _EXCLUDED)


class StandardLibraryFinder:
    """A meta path finder for the standard library's pure-Python modules not loaded yet."""

    def find_spec(self, fullname, path=None, target=None):
        spec = PathFinder.find_spec(fullname, path, target)
        if spec is None or type(spec.loader) is not SourceFileLoader or not spec.origin:
            return None
        real = os.path.realpath(spec.origin)
        if not _covered(real):
            return None
        spec.loader = SourceOnlyLoader(fullname, real)
        spec.origin = real
        return spec

    def invalidate_caches(self):
        PathFinder.invalidate_caches()


def install() -> None:
    """Put the finder just before Python's path finder (after the built-in and frozen ones)."""
    sys.dont_write_bytecode = True
    at = next((i for i, f in enumerate(sys.meta_path) if f is PathFinder), len(sys.meta_path))
    sys.meta_path.insert(at, StandardLibraryFinder())
