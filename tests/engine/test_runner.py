"""engine/runner.py: how a program's ending (errors, sys.exit, input()) becomes the run record."""
import pytest


def test_an_exception_whose_str_fails_is_a_runtime_error(run):
    rec = run("class E(Exception):\n    def __str__(self):\n        raise ValueError('no')\nraise E()")
    assert rec["error"]["kind"] == "runtime_error" and rec["error"]["line"] == 4
    assert rec["error"]["message"] == "<exception str() failed>"


def test_a_huge_error_message_is_cut_not_the_record(run):
    rec = run("raise ValueError('x' * 10_000_000)")
    assert rec["error"]["kind"] == "runtime_error"
    assert len(rec["error"]["message"]) < 5_000 and "cut: 10000000 characters" in rec["error"]["message"]
    assert len(rec["error"]["traceback"]) < 25_000


@pytest.mark.parametrize("code, failed, message", [
    ("import sys\nprint('hi')\nsys.exit()", False, None),
    ("import sys\nsys.exit(0)", False, None),
    ("import sys\nprint('hi')\nsys.exit(3)\nprint('never')", True, "the program called sys.exit(3)"),
    ("raise SystemExit('bye')", True, "bye"),
])
def test_sys_exit_ends_the_program_with_its_status(run, code, failed, message):
    rec = run(code)
    assert "never" not in rec["stdout"]
    assert (rec["error"] is not None) == failed
    if failed:
        assert rec["error"]["message"] == message and rec["error"]["type"] == "SystemExit"


def test_input_says_there_is_no_keyboard(run):
    rec = run("name = input('name? ')\nprint(name)")
    assert rec["error"]["type"] == "EOFError" and "without a keyboard" in rec["error"]["message"]
    assert rec["error"]["line"] == 1


@pytest.mark.parametrize("code, name", [("torch.ones(3).histc(4)", "Tensor.histc"),
                                        ("torch.nn.Parameter(torch.ones(3)).logcumsumexp(0)", "Tensor.logcumsumexp")])
def test_a_tensor_method_dagscope_lacks_is_unsupported_naming_it(run, code, name):
    rec = run("import torch\n" + code)
    assert rec["error"]["kind"] == "unsupported" and rec["error"]["line"] == 2
    assert rec["error"]["message"].startswith(f"{name} is not supported by Dagscope")
    assert "Supported Tensor attributes:" in rec["error"]["message"]


def test_a_missing_attribute_of_anything_else_stays_a_runtime_error(run):
    rec = run("import torch\nclass A:\n    pass\nA().cumsum")
    assert rec["error"]["kind"] == "runtime_error" and rec["error"]["type"] == "AttributeError"
    rec = run("import tensorflow as tf\ntf.constant([1.0]).sum()")
    assert rec["error"]["kind"] == "runtime_error" and "tf.reduce_sum" in rec["error"]["message"]


# ---- stderr: warnings and sys.stderr, apart from stdout ----------------------------------------

def _interleaved(rec) -> list[tuple[str, str]]:
    """The record's output as the page shows it: (stream, text) pieces in the order written."""
    at = {"stdout": 0, "stderr": 0}
    pieces = []
    for stream, count in rec["output_order"]:
        pieces.append((stream, rec[stream][at[stream]:at[stream] + count]))
        at[stream] += count
    return pieces


def test_a_warning_goes_to_stderr_in_pythons_format_at_the_users_line(run):
    rec = run("import warnings\nprint('before')\nwarnings.warn('careful')\nprint('after')")
    assert rec["ok"] and rec["stdout"] == "before\nafter\n"
    assert rec["stderr"] == "<dagscope>:3: UserWarning: careful\n  warnings.warn('careful')\n"
    assert _interleaved(rec) == [("stdout", "before\n"), ("stderr", rec["stderr"]), ("stdout", "after\n")]


def test_each_warning_location_is_shown_once_as_python_does(run):
    rec = run("import warnings\nfor i in range(5):\n    warnings.warn('again')\n"
              "warnings.warn('again')\nwarnings.warn('other', DeprecationWarning)\n"
              "warnings.warn('hidden', PendingDeprecationWarning)")
    assert rec["stderr"].count("UserWarning: again") == 2          # lines 3 and 4, once each
    assert "<dagscope>:5: DeprecationWarning: other" in rec["stderr"]   # shown: it points at __main__
    assert "hidden" not in rec["stderr"]


def test_a_programs_own_warning_filters_still_apply(run):
    rec = run("import warnings\nwarnings.simplefilter('always')\nfor i in range(3):\n    warnings.warn('x')\n"
              "warnings.simplefilter('ignore')\nwarnings.warn('y')\n"
              "with warnings.catch_warnings(record=True) as caught:\n    warnings.simplefilter('always')\n"
              "    warnings.warn('z')\nprint(len(caught), caught[0].lineno)")
    assert rec["stderr"].count("UserWarning: x") == 3 and "y" not in rec["stderr"] and "z" not in rec["stderr"]
    assert rec["stdout"] == "1 9\n"


def test_engine_warnings_point_at_the_users_line(run):
    rec = run("import torch\nx = torch.ones(2, 3, 4)\ny = x.T\nm = torch.nn.Softmax()\nprint(m(torch.ones(2)))")
    assert rec["stdout"] == "tensor([0.5000, 0.5000])\n"
    lines = rec["stderr"].splitlines()
    assert lines[0].startswith("<dagscope>:3: UserWarning: The use of `x.T` on tensors of dimension other than 2")
    assert lines[1] == "  y = x.T"
    assert lines[2] == ("<dagscope>:5: UserWarning: Implicit dimension choice for softmax has been deprecated. "
                        "Change the call to include dim=X as an argument.")
    assert lines[3] == "  print(m(torch.ones(2)))"
    assert "engine" not in rec["stderr"]


def test_print_to_sys_stderr_is_stderr_and_keeps_its_place(run):
    rec = run("import sys\nprint('a')\nprint('oops', file=sys.stderr)\nsys.stderr.write('more\\n')\nprint('b')")
    assert rec["stdout"] == "a\nb\n" and rec["stderr"] == "oops\nmore\n"
    assert rec["output_order"] == [["stdout", 2], ["stderr", 10], ["stdout", 2]]


def test_the_original_streams_are_the_runs_too(run):
    import sys
    before = (sys.__stdout__, sys.__stderr__)
    rec = run("import sys\nprint('o', file=sys.__stdout__)\nprint('e', file=sys.__stderr__)")
    assert rec["stdout"] == "o\n" and rec["stderr"] == "e\n"
    assert (sys.__stdout__, sys.__stderr__) == before


def test_a_trace_warning_goes_to_stderr_and_stays_in_the_graph(run):
    rec = run("import torch\ndef f(x):\n    if x.sum() > 0:\n        return x * 2\n    return x\n"
              "g = torch.jit.trace(f, torch.ones(2))\nprint('traced')")
    assert rec["stdout"] == "traced\n"
    assert "<dagscope>:3: TracerWarning: Converting a tensor to a Python boolean" in rec["stderr"]
    assert any("trace froze the branch at line 3" in w for g in rec["graphs"] for w in g.get("warnings") or [])


def test_the_runs_warning_settings_do_not_leak_into_the_host(run):
    import warnings
    before = (list(warnings.filters), warnings.showwarning)
    run("import warnings\nwarnings.simplefilter('error')\nwarnings.showwarning = print")
    assert (list(warnings.filters), warnings.showwarning) == before


@pytest.mark.parametrize("code", [
    "import warnings\nfor i in range(200_000):\n    warnings.warn(f'flood {i}')\nprint('survived')",
    "import sys\nfor i in range(200_000):\n    print('e' * 40, file=sys.stderr)\nprint('survived')",
])
def test_a_flood_on_stderr_hits_the_output_limit(code):
    from engine.runner import run_user_code
    rec = run_user_code(code, {}, max_stdout_bytes=5_000)
    assert rec["error"]["kind"] == "output_limit" and "stderr" in rec["error"]["message"]
    assert rec["stdout"] == "survived\n"
    assert len(rec["stderr"]) < 5_100 and rec["stderr"].endswith("[output truncated: more than 5000 characters]\n")


def test_output_order_is_bounded_and_never_claims_more_than_was_kept():
    from engine.runner import MAX_ORDER_ENTRIES, run_user_code
    rec = run_user_code("import sys\nfor i in range(20_000):\n    sys.stderr.write('e')\n    print('o', end='')",
                        {}, max_stdout_bytes=100_000)
    assert len(rec["output_order"]) == MAX_ORDER_ENTRIES
    assert sum(n for s, n in rec["output_order"] if s == "stdout") <= len(rec["stdout"])
    assert "".join(text for _, text in _interleaved(rec)) == "eo" * (MAX_ORDER_ENTRIES // 2)


def test_print_exc_writes_to_stderr_as_in_python(run):
    rec = run("import traceback\ntry:\n    1 / 0\nexcept Exception:\n    traceback.print_exc()\nprint('out')")
    assert rec["ok"] and rec["stdout"] == "out\n"
    assert rec["stderr"].startswith('Traceback (most recent call last):\n  File "<dagscope>", line 3, in <module>\n')
    assert rec["stderr"].endswith("ZeroDivisionError: division by zero\n")


def test_sys_argv_is_the_programs_own_name_as_with_python_program_py():
    """argparse's parse_args() reads sys.argv: in a run it must not see the sandbox's command line
    (it was `zygote.py 7`, and pytorch/examples' scripts exited with 'unrecognized arguments: 7')."""
    import sys

    from engine.runner import run_user_code
    before = list(sys.argv)
    record = run_user_code("import argparse, sys\nprint(sys.argv)\n"
                           "p = argparse.ArgumentParser()\np.add_argument('--epochs', type=int, default=3)\n"
                           "print(p.parse_args().epochs)\n")
    assert record["ok"], record["error"]
    assert record["stdout"] == "['<dagscope>']\n3\n"
    assert sys.argv == before


def test_the_programs_globals_are_main_while_it_runs(run):
    """As `python program.py`: pickle finds the program's classes and functions in sys.modules['__main__']
    (torch.save of a model whose class the program defines), doctest.testmod() its docstrings; afterwards
    the host's __main__ is back."""
    import sys
    host_main = sys.modules.get("__main__")
    rec = run("import io, pickle, doctest, sys\nimport torch, torch.nn as nn\n"
              "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
              "        self.fc = nn.Linear(2, 1)\n    def forward(self, x):\n        return self.fc(x)\n"
              "def square(x):\n    '''\n    >>> square(3)\n    9\n    '''\n    return x * x\n"
              "buf = io.BytesIO()\ntorch.save(Net(), buf)\nbuf.seek(0)\n"
              "print(type(torch.load(buf, weights_only=False)).__name__, pickle.loads(pickle.dumps(square))(4))\n"
              "print(doctest.testmod(), sys.modules['__main__'].square is square)\n")
    assert rec["error"] is None, rec["error"]
    assert rec["stdout"] == "Net 16\nTestResults(failed=0, attempted=1) True\n"
    assert sys.modules.get("__main__") is host_main
