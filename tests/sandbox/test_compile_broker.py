"""Kernel compilation across the sandbox: the child describes its kernels, its supervisor checks
the description, writes the C itself and compiles it confined; a run can compile nothing else."""
import os
import shutil
import subprocess
import time

import numpy as np
import pytest

from app.sandbox import compile_broker
from app.sandbox.compile_broker import BrokerError, compile_confined, compile_description
from engine.codegen.description import describe
from engine.codegen.kernel import lower
from engine.ir.graph import Graph
from engine.passes import run_pipeline

needs_cc = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")

COMPILED_RUN = '''
import torch
def f(x, y):
    return torch.tanh(x * y + 1).sum(dim=1)
g = torch.compile(f)
x = torch.randn(4, 8); y = torch.randn(4, 8)
print(torch.allclose(g(x, y), f(x, y)))
'''


def kernel_description(shape=(4, 8)) -> dict:
    g = Graph("k")
    x = g.placeholder("x", shape, np.float32)
    g.output(g.call("sum", g.call("tanh", g.call("mul", x, x)), dim=(1,)))
    optimized = run_pipeline(g).graph
    return describe([lower(optimized, grp) for grp in optimized.fusion_groups if grp.kind != "extern"])


@needs_cc
def test_a_run_compiles_its_kernels_through_the_broker(sandbox_run):
    record = sandbox_run(COMPILED_RUN)
    assert record["ok"], record["error"]
    assert record["stdout"] == "True\n"
    kernels = [k for g in record["graphs"] for k in g["kernels"]]
    assert kernels and {k["language"] for k in kernels} == {"c"}


@needs_cc
def test_c_source_compiles_are_refused_inside_a_run(sandbox_run):
    record = sandbox_run('from engine.codegen import cc\ncc.compile_cached("int x;")\n')
    assert not record["ok"] and record["error"]["type"] == "CompileError"
    assert "C source is not compiled inside a run" in record["error"]["message"]


@needs_cc
def test_a_description_compiles_to_a_library():
    library = compile_description(kernel_description(), 30, 1024, None)
    assert library.startswith(b"\x7fELF")


@pytest.mark.parametrize("forge, message", [
    (lambda d: d["kernels"][0]["steps"][0].update(op="system"), r"steps\[0\]\.op: not an elementwise op"),
    (lambda d: d["kernels"][0]["inputs"][0].update(dtype="float16"), r"inputs\[0\]\.dtype: not a dtype"),
    (lambda d: d["kernels"][0]["loads"][0].update(strides=[8, 100]), "load 0 reaches outside its buffer"),
    (lambda d: d["kernels"][0].update(name="k0(){} int x"), "unknown field 'name'"),
    (lambda d: d.update(version=2), "unknown description version"),
])
def test_the_broker_refuses_a_forged_description_with_a_reason(forge, message):
    description = kernel_description()
    forge(description)
    with pytest.raises(BrokerError, match=message):
        compile_description(description, 30, 1024, None)


def test_no_time_left_is_refused_before_anything_runs():
    with pytest.raises(BrokerError, match="no time left"):
        compile_description(kernel_description(), 0, 1024, None)


# ---- the confined compiler holds even if C the broker did not mean to write got through --------

@needs_cc
@pytest.mark.parametrize("source, refusal", [
    ('#include "/etc/passwd"\n', "/etc/passwd: Permission denied"),
    ('void f(void) {}\n__asm__(".incbin \\"/etc/passwd\\"");\n', "file not found: /etc/passwd"),
])
def test_the_confined_compiler_reads_no_host_file(source, refusal):
    # /etc/passwd is world-readable: only Landlock stands between the compiler and it
    with pytest.raises(BrokerError, match=refusal):
        compile_confined(source, 20, 1024)


@needs_cc
def test_the_confined_compiler_finds_only_the_system_headers(tmp_path, monkeypatch):
    # -nostdinc with the exact system header folders and a fixed environment: the usual headers
    # work; a header folder named by the supervisor's environment (C_INCLUDE_PATH) is not searched
    assert compile_confined("#include <math.h>\n#include <stdint.h>\nint f(void) { return 0; }\n",
                            20, 1024).startswith(b"\x7fELF")
    os.chmod(tmp_path, 0o755)
    (tmp_path / "planted.h").write_text("int planted;\n")
    monkeypatch.setenv("C_INCLUDE_PATH", str(tmp_path))
    monkeypatch.setenv("CPATH", str(tmp_path))
    with pytest.raises(BrokerError, match="planted.h: No such file or directory"):
        compile_confined("#include <planted.h>\n", 20, 1024)


# a macro bomb: 512 tokens in A0, each level squares it (A3: ~10^21 tokens)
BOMB = ("#define A(x) x x x x x x x x\n#define A0(x) A(A(A(x)))\n" +
        "".join(f"#define A{i + 1}(x) A{i}(A{i}(x))\n" for i in range(3)) + "int v = 0 A3(+1);\n")


@needs_cc
def test_a_compiler_bomb_is_stopped_by_the_memory_budget():
    started = time.monotonic()
    with pytest.raises(BrokerError, match="cc1: out of memory allocating"):
        compile_confined(BOMB, 20, 256)
    assert time.monotonic() - started < 10


@needs_cc
def test_a_compiler_bomb_is_stopped_by_the_deadline():
    started = time.monotonic()
    with pytest.raises(BrokerError, match="took longer than the 1.5 s left in the run"):
        compile_confined(BOMB, 1.5, 8192)
    assert time.monotonic() - started < 3


def test_the_toolchain_is_read_from_the_compiler_once():
    if shutil.which("cc") is None:
        pytest.skip("no C compiler")
    compiler, headers, reads = compile_broker.toolchain()
    assert os.path.isabs(compiler) and headers and all(h in reads for h in headers)
    assert not any(r in ("/", "/etc", "/root", "/home", "/tmp", "/proc") for r in reads)



@needs_cc
def test_the_brokers_cache_is_bounded_too(tmp_path, monkeypatch):
    monkeypatch.setenv("DAGSCOPE_KERNEL_CACHE", str(tmp_path))
    first_partition, second_partition = "a" * 32, "b" * 32
    compile_description(kernel_description((2, 3)), 30, 1024, first_partition)
    (old,) = (tmp_path / "broker").glob("*.so")
    os.utime(old, (1, 1))                                          # long unused
    monkeypatch.setenv("DAGSCOPE_KERNEL_CACHE_MB", str(1.5 * old.stat().st_size / (1024 * 1024)))
    compile_description(kernel_description((2, 5)), 30, 1024, second_partition)
    assert not old.exists() and len(list((tmp_path / "broker").glob("*.so"))) == 1


@needs_cc
def test_a_compiler_that_cannot_be_confined_is_a_refusal_not_a_crash(monkeypatch):
    def fail(*args, **kwargs):
        raise subprocess.SubprocessError("Exception occurred in preexec_fn.")
    monkeypatch.setattr(compile_broker.confine, "run", fail)
    with pytest.raises(BrokerError, match="could not be started confined: Exception occurred in preexec_fn"):
        compile_confined("int f;\n", 20, 1024)


@needs_cc
def test_an_unwritable_cache_still_answers(tmp_path, monkeypatch):
    monkeypatch.setenv("DAGSCOPE_KERNEL_CACHE", str(tmp_path))
    (tmp_path / "broker").write_text("a file where the folder would be")
    library = compile_description(kernel_description((2, 7)), 30, 1024, "c" * 32)
    assert library.startswith(b"\x7fELF")
