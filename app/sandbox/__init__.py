"""Runs untrusted code in a fresh, locked-down child of a warm zygote and returns its run record."""
from app.sandbox.limits import Limits
from app.sandbox.runner import ZYGOTE, run_code

__all__ = ["Limits", "ZYGOTE", "run_code"]
