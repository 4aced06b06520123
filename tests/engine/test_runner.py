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


@pytest.mark.parametrize("code, name", [("torch.ones(3).cumsum(0)", "Tensor.cumsum"),
                                        ("torch.nn.Parameter(torch.ones(3)).dot(torch.ones(3))", "Tensor.dot")])
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
