"""TensorFlow/Keras programs (tests/engine/tf_sweep/NN_name.py; 03-05 are the examples/ of the same
names) print what real TensorFlow 2.21 printed for them (NN_name.out, recorded by record_goldens.py,
MANIFEST.json beside them), numbers within printed_output.py's tolerance. Where TensorFlow is
installed (`make test-oracles`), they also run through it now and both are compared with that.
Store the outputs again after changing or adding a program:
    .venv/bin/python tests/engine/record_goldens.py tensorflow [NN_name ...]
"""
from __future__ import annotations

import importlib.util

import pytest

from tests.engine import record_goldens
from tests.engine.printed_output import assert_printouts_agree

LIB = record_goldens.LIBRARIES["tensorflow"]
PROGRAMS = record_goldens.programs(LIB)


def _dagscope(name: str) -> str:
    return record_goldens.dagscope_output((LIB.folder / f"{name}.py").read_text())


def test_the_sweep_has_the_tensorflow_examples():
    assert {"03_tf1_session", "04_tf2_eager", "05_tf_function_control_flow"} <= set(PROGRAMS)
    for name in ("03_tf1_session", "04_tf2_eager", "05_tf_function_control_flow"):
        example = LIB.folder.parents[2] / "examples" / f"{name}.py"
        assert (LIB.folder / f"{name}.py").read_text() == example.read_text(), f"{name}.py differs from the example"


@pytest.mark.parametrize("name", PROGRAMS)
def test_prints_what_tensorflow_printed(name):
    assert_printouts_agree(_dagscope(name), (LIB.folder / f"{name}.out").read_text(), "TensorFlow 2.21's stored output")


@pytest.fixture(scope="module")
def live_tensorflow():
    spec = importlib.util.find_spec("tensorflow")
    # (a folder named tensorflow on sys.path, such as tests/corpus/tensorflow/, is a namespace
    # package with no origin: not TensorFlow)
    if spec is None or spec.origin is None:
        pytest.skip("real TensorFlow is not installed (make test-oracles installs it)")
    results, _ = record_goldens.library_outputs(LIB, PROGRAMS)
    return results


@pytest.mark.oracle
@pytest.mark.parametrize("name", PROGRAMS)
def test_stored_output_and_dagscope_agree_with_tensorflow_now(name, live_tensorflow):
    result = live_tensorflow[name]
    assert result["error"] is None, result["error"]
    assert_printouts_agree((LIB.folder / f"{name}.out").read_text(), result["stdout"], "real TensorFlow (the golden)")
    assert_printouts_agree(_dagscope(name), result["stdout"], "real TensorFlow")
