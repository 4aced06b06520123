"""Complex numbers are refused by name wherever they would enter a jax array (a literal, a dtype, a Python
complex in an op, a numpy array) and grad/jacfwd/jacrev/hessian refuse holomorphic=True: the engine
computes in real numbers, and jnp.sin of a complex array printed the sine of its real part."""
from __future__ import annotations

from engine.runner import run_user_code

PROGRAM = """import numpy as np
import jax
import jax.numpy as jnp
for expr in ["jnp.array([3. + 4j, 1j])", "jnp.asarray(3 + 4j)", "jnp.ones(2) * 1j", "jnp.zeros(2, dtype=jnp.complex64)",
             "jnp.ones(2).astype(jnp.complex64)", "jnp.sin(2 + 1j)", "jnp.array(np.ones(2, complex))",
             "jax.grad(jnp.sin, holomorphic=True)(1.)", "jax.jacrev(jnp.sin, holomorphic=True)(1.)"]:
    try:
        print(expr, '->', eval(expr))
    except Exception as e:
        print(expr, '->', type(e).__name__, str(e).split(':')[0])
print(jax.grad(jnp.sin)(1.0))
"""


def test_complex_values_and_holomorphic_grads_are_refused_by_name():
    record = run_user_code(PROGRAM)
    assert record["error"] is None, record["error"]
    lines = record["stdout"].splitlines()
    assert len(lines) == 10 and lines[-1] == "0.5403023"
    for line in lines[:7]:
        assert line.endswith("-> UnsupportedError complex numbers (complex64) are not supported by Dagscope's jax") or \
            line.endswith("-> UnsupportedError complex numbers (complex128) are not supported by Dagscope's jax"), line
    assert lines[7].endswith("-> UnsupportedError jax.grad(..., holomorphic=True) is not supported by Dagscope")
    assert lines[8].endswith("-> UnsupportedError jax.jacrev(..., holomorphic=True) is not supported by Dagscope")
