"""JAX programs (tests/engine/jax_sweep/NN_name.py) print what real JAX 0.10 printed for them
(NN_name.out, recorded by record_goldens.py, MANIFEST.json beside them), numbers within
printed_output.py's tolerance. Where JAX is installed (`make test-oracles`), they also run through it
now and both are compared with that. Store the outputs again after changing or adding a program:
    .venv/bin/python tests/engine/record_goldens.py jax [NN_name ...]
"""
from __future__ import annotations

import importlib.util

import pytest

from tests.engine import record_goldens
from tests.engine.printed_output import assert_printouts_agree

LIB = record_goldens.LIBRARIES["jax"]
PROGRAMS = record_goldens.programs(LIB)


def _dagscope(name: str) -> str:
    return record_goldens.dagscope_output((LIB.folder / f"{name}.py").read_text())


def test_the_sweep_has_the_gallery_example():
    example = LIB.folder.parents[2] / "examples" / "15_jax_jaxpr_grad_jit_vmap.py"
    assert (LIB.folder / "08_gallery_example.py").read_text() == example.read_text()


@pytest.mark.parametrize("name", PROGRAMS)
def test_prints_what_jax_printed(name):
    assert_printouts_agree(_dagscope(name), (LIB.folder / f"{name}.out").read_text(), "JAX 0.10's stored output")


@pytest.fixture(scope="module")
def live_jax():
    spec = importlib.util.find_spec("jax")
    if spec is None or spec.origin is None:
        pytest.skip("real JAX is not installed (make test-oracles installs it)")
    results, _ = record_goldens.library_outputs(LIB, PROGRAMS)
    return results


@pytest.mark.oracle
@pytest.mark.parametrize("name", PROGRAMS)
def test_stored_output_and_dagscope_agree_with_jax_now(name, live_jax):
    result = live_jax[name]
    assert result["error"] is None, result["error"]
    assert_printouts_agree((LIB.folder / f"{name}.out").read_text(), result["stdout"], "real JAX (the golden)")
    assert_printouts_agree(_dagscope(name), result["stdout"], "real JAX")
