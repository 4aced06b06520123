"""Kernel compilation across the sandbox: the child may not run `cc`, its supervisor does it for
generated C, and refuses anything the generator would never emit."""
import shutil

import pytest

from app.sandbox.compile_broker import BrokerError, compile_checked

pytest.importorskip("engine.codegen.loader")
needs_cc = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")

KERNEL_RUN = '''
import numpy as np
from engine.codegen import loader
src = "#include <stdint.h>\\nvoid add1(float* a, float* out) { for (int64_t i = 0; i < 4; i++) out[i] = a[i] + 1; }\\n"
m = loader.load_module(src, {"add1": 2})
a = np.arange(4, dtype=np.float32); out = np.zeros(4, dtype=np.float32)
m.functions["add1"](a.ctypes.data, out.ctypes.data)
print(out)
'''


@needs_cc
def test_a_run_compiles_and_calls_a_kernel(sandbox_run):
    record = sandbox_run(KERNEL_RUN)
    assert record["ok"], record["error"]
    assert record["stdout"] == "[1. 2. 3. 4.]\n"


@needs_cc
def test_file_includes_are_refused_before_the_compiler_sees_them(sandbox_run):
    record = sandbox_run(KERNEL_RUN.replace("#include <stdint.h>", '#include \\"/etc/passwd\\"'))
    assert not record["ok"] and "refused preprocessor line" in record["error"]["message"]
    assert "root:" not in record["error"]["message"] + record["error"]["traceback"]


@pytest.mark.parametrize("source, flags", [
    ("#define A(x) A(x) A(x)\nint f;", None),
    ("#pragma GCC optimize(\"O0\")\nint f;", None),
    ("int f;", ("-fplugin=/tmp/evil.so",)),
])
def test_broker_refuses_what_the_generator_never_emits(source, flags):
    from engine.codegen import cc
    with pytest.raises(BrokerError):
        compile_checked(source, flags or tuple(cc.FLAGS), 5)
