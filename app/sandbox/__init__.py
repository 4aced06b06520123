"""Runs untrusted code in a child process under limits and returns its run record."""
from app.sandbox.runner import Limits, run_code

__all__ = ["Limits", "run_code"]
