"""The C twins of engine/ops' numpy loops (engine/native/nnkernels.c), when the eager core hands them
over (`use`; engine/native sits above this layer, so it is handed down, not imported). Each caller
keeps its numpy code as the reference and the fallback: `module` is None without a compiler, with
DAGSCOPE_NATIVE=0, or in a test that compares the two."""
from __future__ import annotations

module = None


def use(kernels) -> str:
    """Run the loops that have a C twin in `kernels` (the same operations in the same order, so the
    same bits), or with None, in numpy; returns which."""
    global module
    module = kernels
    return "numpy" if kernels is None else "C (engine/native/nnkernels.c)"
