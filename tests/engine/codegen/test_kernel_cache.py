"""The kernel cache: miss then hit, concurrent writers, a corrupt entry recovered (and computing
right again), LRU bounds, flags and compiler in the key, and the compiler-service seam the sandbox
uses (it receives a description, never C)."""
import multiprocessing
import os
import random

import numpy as np
import pytest

from engine import native
from engine.codegen import cc, loader
from engine.native import build
from engine.codegen.description import canonical, describe, kernel_key
from engine.codegen.kernel import Arg, Kernel, Literal, Load, Step, Store

pytestmark = pytest.mark.skipif(cc.compiler() is None and not os.environ.get("CC"), reason="no C compiler")
F32 = np.dtype(np.float32)


@pytest.fixture(autouse=True)
def fresh_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("DAGSCOPE_KERNEL_CACHE", str(tmp_path / "kernels"))
    monkeypatch.delenv("DAGSCOPE_KERNEL_CACHE_MB", raising=False)
    monkeypatch.delenv("DAGSCOPE_BACKEND", raising=False)
    loader.forget_loaded()
    yield tmp_path / "kernels"
    cc.set_compiler_service(None)
    loader.forget_loaded()


def _scale(factor: float | None = None, n: int = 5) -> Kernel:
    """y = x * factor; a fresh factor makes a library never dlopen'ed before in this process."""
    factor = float(random.randint(2, 1 << 20)) if factor is None else factor
    return Kernel("scale", (n,), (False,), [Arg("x", F32, (n,))], [Arg("y", F32, (n,))],
                  loads=[Load("a0", 0, (1,))],
                  steps=[Step("v0", "n1", "mul", ["a0", Literal(factor, F32)], [F32, F32], {}, F32, "")],
                  stores=[Store(0, "v0", (1,))])


def _run(module, kernel, n=5):
    x = np.arange(n, dtype=np.float32)
    y = np.zeros(n, dtype=np.float32)
    module.functions[kernel.name](x.ctypes.data, y.ctypes.data)
    return y


def _expected(kernel, n=5):
    return np.arange(n, dtype=np.float32) * np.float32(kernel.steps[0].args[1].value)


def test_miss_then_hit(fresh_cache):
    k = _scale()
    module = loader.load_kernels([k])
    assert not module.cache_hit and module.compile_ms > 0 and module.path.exists()
    assert module.path.parent == fresh_cache
    np.testing.assert_array_equal(_run(module, k), _expected(k))
    loader.forget_loaded()                                  # as a new process: only the disk is warm
    again = loader.load_kernels([_scale(k.steps[0].args[1].value)])
    assert again.cache_hit and again.key == module.key and again.path == module.path and again.compile_ms == 0
    np.testing.assert_array_equal(_run(again, k), _expected(k))


def test_key_covers_description_flags_and_compiler():
    text = canonical(describe([_scale(2.0)]))
    assert kernel_key(text, cc.FLAGS) != kernel_key(canonical(describe([_scale(3.0)])), cc.FLAGS)
    assert kernel_key(text, cc.FLAGS) != kernel_key(text, cc.FLAGS + ("-fopenmp",))
    assert cc.compiler_identity() in ("service",) or "model name" in cc.compiler_identity() or \
        cc.compiler_identity().count("|") == 2


def test_names_are_not_part_of_the_key():
    a, b = _scale(2.0), _scale(2.0)
    b.name, b.node_ids, b.steps[0].comment = "*/ evil /*", ["n9"], "line 3: y = x * 2"
    assert canonical(describe([a])) == canonical(describe([b]))


def _compile_in_child(args):
    cache, factor = args
    os.environ["DAGSCOPE_KERNEL_CACHE"] = cache
    module = loader.load_kernels([_scale(factor)])
    return str(module.path), module.key


def test_concurrent_writers_leave_one_complete_entry(fresh_cache):
    factor = float(random.randint(2, 1 << 20))
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(4) as pool:
        results = pool.map(_compile_in_child, [(str(fresh_cache), factor)] * 4)
    assert len(set(results)) == 1
    entries = sorted(p.name for p in fresh_cache.iterdir())
    assert entries == [os.path.basename(results[0][0])]        # no temp files left behind
    k = _scale(factor)
    np.testing.assert_array_equal(_run(loader.load_kernels([k]), k), _expected(k))


def _entry(kernel) -> "os.PathLike":
    """Where the cache keeps `kernel`'s module (written here without loading it: dlopen would
    hand back a library already loaded from that path)."""
    return cc.entry_path(cc.cache_key(kernel_key(canonical(describe([kernel])), cc.FLAGS)))


def test_corrupt_entry_is_rebuilt_and_computes_right(fresh_cache):
    k = _scale()
    cc.write_atomic(_entry(k), b"\x7fELF this is not a library")      # e.g. a disk error or a bad copy
    module = loader.load_kernels([k])
    assert module.recovered and not module.cache_hit
    np.testing.assert_array_equal(_run(module, k), _expected(k))


def test_entry_with_wrong_key_is_rebuilt_and_computes_right(fresh_cache):
    a, b = _scale(), _scale()
    cc.write_atomic(_entry(b), cc.compile_kernels(describe([a])))     # a valid library, but another kernel's
    module = loader.load_kernels([b])
    assert module.recovered
    np.testing.assert_array_equal(_run(module, b), _expected(b))


def test_cache_is_bounded_and_evicts_least_recently_used(fresh_cache, monkeypatch):
    first = loader.load_kernels([_scale()]).path
    size = first.stat().st_size
    os.utime(first, (1, 1))                                   # long unused
    monkeypatch.setenv("DAGSCOPE_KERNEL_CACHE_MB", str(1.5 * size / (1024 * 1024)))
    second = loader.load_kernels([_scale()]).path
    assert second.exists() and not first.exists()


def test_compiler_service_seam_receives_a_description(fresh_cache):
    calls = []

    def service(description):
        calls.append(description)
        return cc.compile_kernels_here(description)

    cc.set_compiler_service(service)
    k = _scale()
    module = loader.load_kernels([k])
    assert calls == [describe([k])] and not module.cache_hit
    assert "source" not in calls[0] and "scale" not in canonical(calls[0])    # no C, no names
    np.testing.assert_array_equal(_run(module, k), _expected(k))


def test_compile_error_names_the_compiler_output(fresh_cache):
    with pytest.raises(cc.CompileError, match="error"):
        cc.compile_cached("this is not C;")


def test_refuse_source_stops_every_source_compile(fresh_cache, monkeypatch):
    monkeypatch.setattr(build, "_source_refusal", None)      # the one switch, below codegen and native
    cc.refuse_source("no C source here")
    with pytest.raises(cc.CompileError, match="no C source here"):
        cc.compile_cached("int x;")
    with pytest.raises(cc.CompileError, match="no C source here"):
        loader.load_kernels([_scale()])              # kernels compiled *here* are source too
    with pytest.raises(build.CompileError, match="no C source here"):
        build.compile_cached(native.SOURCE.read_text(), native.FLAGS)    # fastops.c, as native.load builds it
