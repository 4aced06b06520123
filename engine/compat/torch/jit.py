"""`torch.jit`: trace and script (engine.capture), plus the names scripted code commonly uses."""
from __future__ import annotations

from engine.capture.scripting import ScriptFunction, ScriptModule, script
from engine.capture.tracing import TracedFunction, Tracer, TracerWarning, trace
from engine.errors import UnsupportedError
from engine.hooks import OP_APPLIED

ScriptModule = ScriptModule
ScriptFunction = ScriptFunction
TracedModule = TracedFunction


def ignore(fn=None, **kwargs):
    """@torch.jit.ignore: left as Python (Dagscope runs such calls as library code)."""
    return fn if fn is not None else (lambda f: f)


def unused(fn):
    return fn


def is_scripting() -> bool:
    return False


def is_tracing() -> bool:
    return any(isinstance(getattr(o, "__self__", None), Tracer) for o in OP_APPLIED)


def load(path):
    raise UnsupportedError("torch.jit.load is not supported by Dagscope: .save() writes the graph's IR as "
                           "text for reading, not an archive to load")


__all__ = ["trace", "script", "ScriptModule", "ScriptFunction", "TracedModule", "TracerWarning", "ignore",
           "unused", "is_scripting", "is_tracing", "load"]
