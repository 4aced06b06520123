"""jax.debug.breakpoint is refused by name: JAX's debugger waits at a prompt for typed commands, and a run
has no terminal (its stdin is not the user's). The refusal says what to use instead, and comes before
anything waits (jax.debug.callback and print are checked against real JAX in jax_sweep/42)."""
from __future__ import annotations

from engine.runner import run_user_code


def test_breakpoint_is_refused_by_name_with_what_to_use_instead():
    record = run_user_code("import jax\n\n@jax.jit\ndef f(x):\n    jax.debug.breakpoint()\n    return x\n\n"
                           "print('before')\nf(1.0)\n")
    assert record["stdout"] == "before\n"
    error = record["error"]
    assert error["type"] == "NotImplementedError"
    assert "jax.debug.breakpoint is not supported by Dagscope" in error["message"]
    assert "jax.debug.print" in error["message"] and "jax.debug.callback" in error["message"]
