"""Which module is running now (a stack pushed by Module.__call__), for module paths on nodes."""
from __future__ import annotations

_stack: list[str] = []


def current_module_path() -> str | None:
    return _stack[-1] if _stack else None


def push(path: str) -> None:
    _stack.append(path)


def pop() -> None:
    _stack.pop()
