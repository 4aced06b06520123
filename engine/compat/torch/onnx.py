"""`torch.onnx`: importable, as programs import it at the top and export only when asked
(pytorch/examples' word_language_model with --onnx-export). Export itself is planned (compat/scope.py)."""
from engine.compat.scope import sentence as _sentence
from engine.compat.torch._surface import unsupported_getattr as _unsupported_getattr
from engine.errors import UnsupportedError as _UnsupportedError


def export(model, args=(), f=None, *more, **options):
    """Refuses, saying that ONNX export is planned: a run cannot write the model out yet."""
    raise _UnsupportedError(f"torch.onnx.export is not supported by Dagscope. {_sentence('torch.onnx.export')}")


def is_in_onnx_export() -> bool:
    """No export ever runs in Dagscope (models check this to take their export-only branch)."""
    return False


__getattr__ = _unsupported_getattr("torch.onnx", globals())
