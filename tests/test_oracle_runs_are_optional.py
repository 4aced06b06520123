"""The live runs of TensorFlow (and later JAX) are optional (issue 21): a plain pytest run, as `make
test` makes, leaves the `oracle` tests out even where TensorFlow is installed (they take minutes: a
child per program), and `make test-oracles`' selection runs them. The recorded goldens are checked
in every run."""
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
TF_SWEEP = "tests/engine/compat/tensorflow_facade/test_tensorflow_sweep.py"


def _collected(*args: str) -> list[str]:
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-p", "no:cacheprovider",
                           TF_SWEEP, *args], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return [line for line in done.stdout.splitlines() if "::" in line]


def test_a_plain_run_checks_the_goldens_but_runs_no_live_oracle():
    tests = _collected()
    assert any("test_prints_what_tensorflow_printed" in t for t in tests)
    assert not any("agree_with_tensorflow_now" in t for t in tests)


def test_make_test_oracles_selects_the_live_oracle_runs():
    selection = re.search(r'^test-oracles:.*\n\t.*pytest -m "([^"]+)"', (ROOT / "Makefile").read_text(), re.M)
    assert selection, "make test-oracles no longer selects with -m"
    tests = _collected("-m", selection.group(1))
    assert any("agree_with_tensorflow_now" in t for t in tests)
