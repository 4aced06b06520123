"""Which module is running now (a stack pushed by Module.__call__), for module paths on nodes.

Paths are qualified names from the outermost model ("fc1", "encoder.layers.0"); the model itself
is the empty path, reported as None (its ops belong to no submodule)."""
from __future__ import annotations

_stack: list[str] = []


def current_module_path() -> str | None:
    return (_stack[-1] or None) if _stack else None


def push(path: str) -> None:
    _stack.append(path)


def pop() -> None:
    _stack.pop()
