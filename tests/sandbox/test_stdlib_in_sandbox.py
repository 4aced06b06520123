"""The standard library inside a run: every module imports, or fails saying which and why.

A run may not turn bytecode into code (marshal), so a standard module the zygote did not load is
compiled from the installation's source (app/sandbox/stdlib_import.py). These tests import every
name in `sys.stdlib_module_names` in real runs, and try to make the loader compile what a run
wrote."""
import json
import sys
import time

import pytest

from app.sandbox.limits import Limits

BATCH_LIMITS = Limits(timeout_s=20.0, memory_mb=768, max_stdout_bytes=200_000, max_record_bytes=2_000_000)
PROBE = '''import json, time
results = {}
for name in NAMES:
    started = time.perf_counter()
    try:
        __import__(name)
        results[name] = ["ok", time.perf_counter() - started]
    except BaseException as exc:
        results[name] = [f"{type(exc).__name__}: {exc}", time.perf_counter() - started]
print(json.dumps(results))
'''
# What lessons import: each must import, not merely fail well.
MUST_IMPORT = [
    "argparse", "glob", "csv", "pickle", "enum", "abc", "heapq", "bisect", "operator", "decimal",
    "fractions", "datetime", "hashlib", "struct", "array", "io", "pathlib", "tempfile", "zipfile",
    "gzip", "base64", "urllib", "unittest", "doctest", "asyncio", "colorsys", "statistics", "typing",
    "dataclasses", "itertools", "functools", "collections", "random", "math", "json", "re", "string",
    "textwrap", "pprint", "copy", "time", "timeit", "logging", "contextlib", "uuid", "shutil", "sqlite3",
    "tarfile", "zoneinfo", "tomllib", "difflib", "queue", "threading", "concurrent", "pdb", "pkgutil",
    "email", "html", "xml", "http", "inspect", "ast", "dis", "tokenize", "cProfile", "profile", "trace",
]
# Why a module may fail: the words its message must hold (besides the module's name).
REASONS = ("network access", "starting other programs", "starting other processes", "calling C code",
           "loading modules by hand", "handling signals", "changing the run's limits",
           "Windows only", "macOS only", "built without it")


def _probe(sandbox_run, names: list[str]) -> dict:
    record = sandbox_run(f"NAMES = {names!r}\n" + PROBE, BATCH_LIMITS)
    assert record["error"] is None, record["error"]
    return json.loads(record["stdout"].splitlines()[-1])


def test_every_standard_module_imports_or_says_why(sandbox_run):
    names = sorted(sys.stdlib_module_names)
    results = {}
    started = time.monotonic()
    for at in range(0, len(names), 60):
        results.update(_probe(sandbox_run, names[at:at + 60]))
    assert time.monotonic() - started < 60
    assert set(results) == set(names)
    failed = {name: outcome for name, (outcome, _) in results.items() if outcome != "ok"}
    for name, message in failed.items():
        assert name in message and any(reason in message for reason in REASONS), (name, message)
        assert "marshal" not in message, (name, message)
    assert not set(MUST_IMPORT) & set(failed), {n: failed[n] for n in set(MUST_IMPORT) & set(failed)}
    assert max(seconds for _, seconds in results.values()) < 2.0
    assert len(failed) < 40, sorted(failed)


def test_a_module_the_zygote_did_not_load_is_compiled_from_its_source(sandbox_run):
    record = sandbox_run("import colorsys, sys, sysconfig\nloader = colorsys.__spec__.loader\n"
                         "print(type(loader).__name__, colorsys.__file__.startswith(sysconfig.get_path('stdlib')))\n"
                         "print(colorsys.rgb_to_hsv(0.2, 0.4, 0.4))")
    assert record["error"] is None, record["error"]
    assert record["stdout"] == "SourceOnlyLoader True\n(0.5, 0.5, 0.4)\n"


def test_lesson_uses_of_the_standard_library_work(sandbox_run):
    code = ("import argparse, glob, csv, pickle, gzip, zipfile, io, tempfile, pathlib, unittest, doctest\n"
            "p = argparse.ArgumentParser()\np.add_argument('--lr', type=float, default=0.1)\n"
            "args = p.parse_args([])\n"
            "with open('data.csv', 'w', newline='') as f:\n    csv.writer(f).writerows([[1, 2], [3, 4]])\n"
            "with gzip.open('d.gz', 'wb') as f:\n    f.write(pickle.dumps({'lr': args.lr}))\n"
            "with gzip.open('d.gz') as f:\n    back = pickle.loads(f.read())\n"
            "with zipfile.ZipFile('a.zip', 'w') as z:\n    z.write('data.csv')\n"
            "with tempfile.TemporaryDirectory() as d:\n    pathlib.Path(d, 'x.txt').write_text('hi')\n"
            "    inside = sorted(p.name for p in pathlib.Path(d).iterdir())\n"
            "class T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(1 + 1, 2)\n"
            "result = unittest.TextTestRunner(stream=io.StringIO()).run(unittest.defaultTestLoader.loadTestsFromTestCase(T))\n"
            "print(back, sorted(glob.glob('*.csv')), inside, result.wasSuccessful())\n")
    record = sandbox_run(code)
    assert record["error"] is None, record["error"]
    assert record["stdout"] == "{'lr': 0.1} ['data.csv'] ['x.txt'] True\n"


def test_a_blocked_module_imported_by_the_program_names_itself(sandbox_run):
    err = sandbox_run("import socket")["error"]
    assert err["kind"] == "security_violation" and "`import socket` (network access)" in err["message"]
    err = sandbox_run("import winreg")["error"]
    assert "winreg" in err["message"] and "Windows only" in err["message"]


def test_a_standard_module_may_import_what_the_program_may_not_but_not_use_it(sandbox_run):
    """asyncio imports socket, unittest signal, zipfile importlib: they import; a socket is
    still refused when the program makes one through them."""
    record = sandbox_run("import asyncio, email.utils, logging.handlers\n"
                         "logging.handlers.SocketHandler('10.0.0.1', 9).makeSocket()")
    assert record["error"]["kind"] == "security_violation", record["error"]
    assert "network access" in record["error"]["message"]


# ---- what a run writes never becomes code through the import system ---------------------------

@pytest.mark.parametrize("where", ["scratch_pyc", "scratch_pycache", "shadowing_stdlib"])
def test_bytecode_a_run_wrote_is_refused(sandbox_run, where):
    """A run compiles its own code, marshals it into a .pyc in its scratch folder (beside a
    module, in __pycache__ as an unchecked hash-based .pyc, or under a standard module's name)
    and imports it: loading it needs marshal, refused to a run; the standard-library loader
    never reads a .pyc."""
    name = "colorsys" if where == "shadowing_stdlib" else "mine"
    path = f"__pycache__/{name}.{sys.implementation.cache_tag}.pyc" if where == "scratch_pycache" else f"{name}.pyc"
    code = ("import marshal, os, sys\nos.makedirs('__pycache__', exist_ok=True)\n"
            + f"open('{name}.py', 'w').write('print(\"source ran\")')\n" * (where == "scratch_pycache")
            + "magic = sys.modules['_frozen_importlib_external'].MAGIC_NUMBER\n"
            "body = marshal.dumps(compile('print(\"FORGED CODE RAN\")', 'forged', 'exec'))\n"
            f"open({path!r}, 'wb').write(magic + (1).to_bytes(4, 'little') + bytes(8) + body)\n"
            "sys.path.insert(0, os.getcwd())\nsys.path_importer_cache.clear()\n"
            f"import {name}\n")
    record = sandbox_run(code)
    assert "FORGED CODE RAN" not in record["stdout"] and "source ran" not in record["stdout"]
    assert record["error"]["kind"] == "security_violation", record["error"]
    assert f"`import {name}`" in record["error"]["message"] and "marshal" in record["error"]["message"]


def test_the_source_loader_compiles_only_standard_library_files(sandbox_run):
    """The loader class is reachable from any module's spec: made by hand with a path spelled
    through Dagscope's folder into the scratch folder, it refuses rather than give the run's own
    code a trusted file name."""
    code = ("import colorsys, engine, os\nopen('evil.py', 'w').write('print(\"EVIL RAN\")')\n"
            "base = os.path.dirname(engine.__file__)\n"
            "path = os.path.join(base, os.path.relpath(os.path.abspath('evil.py'), base))\n"
            "loader = type(colorsys.__spec__.loader)('evil', path)\n"
            "try:\n    exec(loader.get_code('evil'))\nexcept ImportError as exc:\n    print('refused:', 'standard library' in str(exc))\n"
            "try:\n    exec(type(loader)('evil', os.path.abspath('evil.py')).get_code('evil'))\n"
            "except ImportError as exc:\n    print('refused:', 'standard library' in str(exc))\n")
    record = sandbox_run(code)
    assert record["error"] is None, record["error"]
    assert record["stdout"] == "refused: True\nrefused: True\n"


def test_a_run_cannot_write_into_the_standard_library(sandbox_run):
    code = ("import os, sysconfig\npath = os.path.join(sysconfig.get_path('stdlib'), '__pycache__', 'zz_dagscope.pyc')\n"
            "open(path, 'wb').write(b'x')\n")
    record = sandbox_run(code)
    assert record["error"]["kind"] == "security_violation", record["error"]


def test_a_rewired_source_loader_lends_no_trust(sandbox_run):
    """The loader's globals are the run's to change: with its checks replaced, it compiles a file
    of the run under a name inside Dagscope's folder, and the policy still judges that compile as
    the run's (the loader is neutral, like the standard library), so it is refused."""
    code = ("import colorsys, engine, os\nopen('evil.py', 'w').write('print(\"EVIL RAN\")')\n"
            "base = os.path.dirname(engine.__file__)\n"
            "path = os.path.join(base, os.path.relpath(os.path.abspath('evil.py'), base))\n"
            "loader = type(colorsys.__spec__.loader)\nspace = loader.get_code.__globals__\n"
            "class Path:\n    realpath = staticmethod(lambda p: p)\n"
            "class Os:\n    path = Path\n"
            "space['os'], space['_covered'] = Os, lambda real: True\n"
            "exec(loader('evil', path).get_code('evil'))\n")
    record = sandbox_run(code)
    assert "EVIL RAN" not in record["stdout"]
    assert record["error"]["kind"] == "security_violation", record["error"]
    assert "Dagscope's own files" in record["error"]["message"]
