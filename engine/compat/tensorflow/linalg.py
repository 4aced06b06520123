"""`tf.linalg`: matrix products (what Dagscope's registry has)."""
from __future__ import annotations

from engine.compat.tensorflow._surface import unsupported_names
from engine.compat.tensorflow.array_ops import eye, transpose  # noqa: F401
from engine.compat.tensorflow.ops import matmul  # noqa: F401


def matrix_transpose(a, name="matrix_transpose"):
    """Swap the last two axes."""
    rank = len(a.shape)
    return transpose(a, perm=list(range(rank - 2)) + [rank - 1, rank - 2], name=name)


__getattr__ = unsupported_names("tf.linalg", globals())
