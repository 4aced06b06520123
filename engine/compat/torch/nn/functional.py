"""`torch.nn.functional` (usually imported as F): engine.functional's PyTorch-named functions."""
from engine.compat.torch._surface import functional_module, unsupported_getattr

globals().update({name: value for name, value in vars(functional_module()).items()
                  if not name.startswith("_") and callable(value) and getattr(value, "__module__", "").startswith("engine")
                  and not isinstance(value, type)})

__getattr__ = unsupported_getattr("torch.nn.functional", globals())
