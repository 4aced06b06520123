"""Runs untrusted code in a fresh, locked-down child of a warm zygote and returns its run record."""
from app.sandbox.limits import Limits
from app.sandbox.runner import ZYGOTE, RunControl, run_code

__all__ = ["Limits", "RunControl", "ZYGOTE", "run_code"]
