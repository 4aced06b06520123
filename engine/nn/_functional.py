"""engine.functional, imported on first use: nn layers call it at forward time, which keeps
`import engine.nn` free of import-order cycles with the functional module."""
from __future__ import annotations

import importlib


class _LazyFunctional:
    def __getattr__(self, name: str):
        return getattr(importlib.import_module("engine.functional"), name)


F = _LazyFunctional()
