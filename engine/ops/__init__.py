"""The op registry and every op family; importing this package registers all ops."""
import numpy as np

from engine.ops import convolution, effects, elementwise, factorizations, index, linalg, movement, nn, reduce, resample  # noqa: F401  (registration side effects)
from engine.ops.registry import KINDS, OPS, OpDef, Spec, get, register

# PyTorch computes IEEE arithmetic silently (log(0) = -inf, 0/0 = nan); numpy would print a
# RuntimeWarning for each. A per-op np.errstate costs ~1.4 us, more than a tiny op itself, so the
# engine sets numpy's floating-point error handling once, process-wide.
np.seterr(divide="ignore", invalid="ignore", over="ignore", under="ignore")

__all__ = ["KINDS", "OPS", "OpDef", "Spec", "get", "register"]
