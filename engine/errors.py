"""Errors the engine raises on purpose, so the run record can name their kind."""


class UnsupportedError(NotImplementedError):
    """A name or feature outside Dagscope's supported surface; the message names it and what exists."""
