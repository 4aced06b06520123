"""The op registry and every op family; importing this package registers all ops."""
from engine.ops import elementwise, linalg, movement, reduce  # noqa: F401  (registration side effects)
from engine.ops.registry import KINDS, OPS, OpDef, Spec, get, register

__all__ = ["KINDS", "OPS", "OpDef", "Spec", "get", "register"]
