"""Errors the engine raises on purpose, so the run record can name their kind."""


class UnsupportedError(NotImplementedError):
    """A name or feature outside Dagscope's supported surface; the message names it and what exists."""


class UnsupportedAttributeError(UnsupportedError, AttributeError):
    """An unsupported attribute of a facade module or class. Also an AttributeError, so
    `hasattr(torch.nn, "LSTM")` is False and `getattr(..., default)` works as with any module,
    while a direct use still fails as `unsupported`."""


class GraphLoopLimit(UnsupportedError):
    """What a compiled tensor loop cannot hold though an unrolled one can: a loop variable that is not a
    tensor (a TensorArray), a value the body needs known while compiling (an index), a variable assigned in
    the body. A loop over a known count (TensorFlow's tf.range(3)) is then unrolled."""
