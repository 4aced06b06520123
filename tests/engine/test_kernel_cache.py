"""The kernel cache: miss then hit, concurrent writers, a corrupt entry recovered, LRU bounds,
flags in the key, and the compiler-service seam the sandbox uses."""
import ctypes
import multiprocessing
import os
import uuid

import numpy as np
import pytest

from engine.codegen import cc, loader

pytestmark = pytest.mark.skipif(cc.compiler() is None and not os.environ.get("CC"), reason="no C compiler")


@pytest.fixture(autouse=True)
def fresh_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("DAGSCOPE_KERNEL_CACHE", str(tmp_path / "kernels"))
    monkeypatch.delenv("DAGSCOPE_KERNEL_CACHE_MB", raising=False)
    monkeypatch.delenv("DAGSCOPE_BACKEND", raising=False)
    loader.forget_loaded()
    yield tmp_path / "kernels"
    cc.set_compiler_service(None)
    loader.forget_loaded()


def _source(tag: str, factor: int = 2) -> str:
    # a unique constant makes a unique library (never dlopen'ed before in this process)
    return f"void scale(float *x, long n) {{ for (long i = 0; i < n; i++) x[i] *= {factor}.0f; }}\n/* {tag} */\n"


def _run(module, n=5):
    x = np.arange(n, dtype=np.float32)
    fn = module.functions["scale"]
    fn.argtypes = [ctypes.c_void_p, ctypes.c_long]
    fn(x.ctypes.data, n)
    return x


def test_miss_then_hit(fresh_cache):
    src = _source(uuid.uuid4().hex)
    path, key, ms, hit = cc.compile_cached(src)
    assert not hit and ms > 0 and path.exists() and path.parent == fresh_cache
    path2, key2, ms2, hit2 = cc.compile_cached(src)
    assert hit2 and key2 == key and path2 == path and ms2 == 0
    module = loader.load_module(src, {"scale": 2})
    assert module.cache_hit
    np.testing.assert_array_equal(_run(module), np.arange(5) * 2)


def test_key_covers_source_flags_and_compiler():
    src = _source("k")
    assert cc.cache_key(src) != cc.cache_key(src + " ")
    assert cc.cache_key(src) != cc.cache_key(src, flags=cc.FLAGS + ("-fopenmp",))
    assert cc.compiler_identity() in ("service",) or "model name" in cc.compiler_identity() or \
        cc.compiler_identity().count("|") == 2


def _compile_in_child(args):
    cache, src = args
    os.environ["DAGSCOPE_KERNEL_CACHE"] = cache
    path, key, _, _ = cc.compile_cached(src)
    return str(path), key


def test_concurrent_writers_leave_one_complete_entry(fresh_cache):
    src = _source(uuid.uuid4().hex)
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(4) as pool:
        results = pool.map(_compile_in_child, [(str(fresh_cache), src)] * 4)
    assert len({r for r in results}) == 1
    entries = sorted(p.name for p in fresh_cache.iterdir())
    assert entries == [os.path.basename(results[0][0])]        # no temp files left behind
    module = loader.load_module(src, {"scale": 2})
    np.testing.assert_array_equal(_run(module), np.arange(5) * 2)


def test_corrupt_entry_is_rebuilt(fresh_cache):
    src = _source(uuid.uuid4().hex)
    path, key, _, _ = cc.compile_cached(src)
    cc.write_atomic(path, b"\x7fELF this is not a library")      # e.g. a disk error or a bad copy
    module = loader.load_module(src, {"scale": 2})
    assert module.recovered and not module.cache_hit
    np.testing.assert_array_equal(_run(module), np.arange(5) * 2)


def test_entry_with_wrong_key_is_rebuilt(fresh_cache):
    a, b = _source(uuid.uuid4().hex, factor=3), _source(uuid.uuid4().hex, factor=2)
    pa, _, _, _ = cc.compile_cached(a)
    pb, _, _, _ = cc.compile_cached(b)
    cc.write_atomic(pb, pa.read_bytes())             # a valid library, but another kernel's (x * 3)
    module = loader.load_module(b, {"scale": 2})
    assert module.recovered and module.path == pb
    np.testing.assert_array_equal(_run(module), np.arange(5) * 2)     # b's kernel, rebuilt; not a's
    assert pb.read_bytes() != pa.read_bytes()


def test_cache_is_bounded_and_evicts_least_recently_used(fresh_cache, monkeypatch):
    first, _, _, _ = cc.compile_cached(_source(uuid.uuid4().hex))
    size = first.stat().st_size
    os.utime(first, (1, 1))                                   # long unused
    monkeypatch.setenv("DAGSCOPE_KERNEL_CACHE_MB", str(1.5 * size / (1024 * 1024)))
    second, _, _, _ = cc.compile_cached(_source(uuid.uuid4().hex))
    assert second.exists() and not first.exists()


def test_compiler_service_seam(fresh_cache):
    calls = []

    def service(source, flags):
        calls.append(flags)
        return cc._local_compile(source, flags)

    cc.set_compiler_service(service)
    src = _source(uuid.uuid4().hex)
    module = loader.load_module(src, {"scale": 2})
    assert calls == [cc.FLAGS] and not module.cache_hit
    np.testing.assert_array_equal(_run(module), np.arange(5) * 2)


def test_compile_error_names_the_compiler_output(fresh_cache):
    with pytest.raises(cc.CompileError, match="error"):
        cc.compile_cached("this is not C;")
