"""Where real PyTorch is absent, its oracle tests are skipped, the rest passes, and the run ends with
one line that says so (tests/conftest.py's pytest_terminal_summary); where it is present, no line."""
import importlib.util
import pathlib
import subprocess
import sys
import types

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
# `import torch` fails in this child as if torch were not installed; then pytest runs as usual.
_WITHOUT_TORCH = "import sys; sys.modules['torch'] = None; import pytest; sys.exit(pytest.main(sys.argv[1:]))"


def test_without_torch_the_oracle_tests_skip_with_one_notice():
    # test_reciprocal.py: tests of its own and tests against real torch (the `real_torch` fixture)
    done = subprocess.run([sys.executable, "-c", _WITHOUT_TORCH, "tests/engine/ops/test_reciprocal.py",
                           "-p", "no:cacheprovider", "-p", "no:xdist"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:]
    notes = [line for line in done.stdout.splitlines() if "PyTorch is not installed" in line]
    assert len(notes) == 1 and notes[0].startswith("NOTE: ") and "skipped" in notes[0], done.stdout[-2000:]
    assert " passed" in done.stdout and " skipped" in done.stdout


class _Reporter:
    def __init__(self, skipped):
        self.stats = {"skipped": skipped}
        self.lines = []

    def write_line(self, line):
        self.lines.append(line)


def _skip(reason):
    return types.SimpleNamespace(longrepr=("tests/engine/x.py", 1, f"Skipped: {reason}"))


@pytest.mark.parametrize("installed", [True, False])
def test_the_notice_says_so_only_where_torch_is_absent(monkeypatch, installed):
    spec = importlib.util.spec_from_file_location("root_conftest", ROOT / "tests" / "conftest.py")
    root_conftest = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(root_conftest)                 # (two conftest modules: load it by path)
    monkeypatch.setattr(root_conftest, "real_torch_installed", lambda: installed)
    reporter = _Reporter([_skip("real PyTorch is not installed"), _skip("could not import 'torch'"), _skip("no C compiler")])
    root_conftest.pytest_terminal_summary(reporter)
    assert reporter.lines == ([] if installed else [
        "NOTE: real PyTorch is not installed, so the oracle tests were skipped (2 skips; `make test` installs "
        "torch==2.13.0 CPU)"])
