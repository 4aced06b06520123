"""Where real PyTorch is absent, its oracle tests are skipped, the rest passes, and the run ends with
one line that says so (tests/conftest.py); where it is present, no such line."""
import importlib.util
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
# `import torch` fails in this child as if torch were not installed; then pytest runs as usual.
_WITHOUT_TORCH = "import sys; sys.modules['torch'] = None; import pytest; sys.exit(pytest.main(sys.argv[1:]))"
_FILES = ["tests/engine/test_ops_torch_oracle.py", "tests/engine/test_compat_sweep_torch.py",
          "-p", "no:cacheprovider", "-p", "no:xdist"]


def _pytest(prefix: list[str], select: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *prefix, *_FILES, "-k", select], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)


def test_without_torch_the_oracle_tests_skip_with_one_notice():
    done = _pytest(["-c", _WITHOUT_TORCH], "comparison or scheduler or real_pytorch or 01_polyfit")
    assert done.returncode == 0, done.stdout[-2000:]
    notes = [line for line in done.stdout.splitlines() if "PyTorch is not installed" in line]
    assert len(notes) == 1 and notes[0].startswith("NOTE: ") and "skipped" in notes[0], done.stdout[-2000:]
    assert " passed" in done.stdout and " skipped" in done.stdout


def test_with_torch_there_is_no_notice():
    if importlib.util.find_spec("torch") is None:
        pytest.skip("real PyTorch is not installed here")
    done = _pytest(["-m", "pytest"], "comparison or scheduler")
    assert done.returncode == 0 and "PyTorch is not installed" not in done.stdout, done.stdout[-2000:]
