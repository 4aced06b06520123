"""Which recorder records now: the innermost `use_recorder` (engine/record/listen.py)."""
from __future__ import annotations

_current = None


def current():
    """The Recorder of the run being recorded, or None."""
    return _current


def make_current(recorder):
    """Make `recorder` (or None) the current one; returns the one it replaces."""
    global _current
    previous, _current = _current, recorder
    return previous
