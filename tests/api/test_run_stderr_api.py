"""stderr over the API: a run's warnings arrive in `stderr` with their order, and hostile stderr
(floods, odd text, a replaced sys.stderr) is answered with a record, never a 500."""
import pytest


@pytest.fixture(autouse=True)
def fast_runs(monkeypatch):
    monkeypatch.setenv("DAGSCOPE_RUN_TIMEOUT", "3")
    monkeypatch.setenv("DAGSCOPE_MAX_STDOUT_BYTES", "20000")


def test_a_warning_is_in_stderr_and_stdout_is_the_programs(client):
    rec = client.post("/api/run", json={"code": "import warnings\nprint(1)\nwarnings.warn('w')\nprint(2)"}).json()
    assert rec["ok"] and rec["stdout"] == "1\n2\n"
    assert rec["stderr"] == "<dagscope>:3: UserWarning: w\n  warnings.warn('w')\n"
    assert rec["output_order"] == [["stdout", 2], ["stderr", len(rec["stderr"])], ["stdout", 2]]


@pytest.mark.parametrize("code", [
    "import warnings\nfor i in range(100_000):\n    warnings.warn('flood %d' % i)",
    "import sys\nfor i in range(20_000):\n    sys.stderr.write('x' * 1000)",
    "import sys\nfor i in range(100_000):\n    print(i, file=sys.stderr)\n    print(i)",
])
def test_a_stderr_flood_is_an_output_limit_and_the_server_stays_up(client, code):
    r = client.post("/api/run", json={"code": code})
    assert r.status_code == 200
    rec = r.json()
    assert rec["error"]["kind"] == "output_limit" and "stderr" in rec["error"]["message"]
    assert len(rec["stderr"]) < 20_100 and len(rec["output_order"]) <= 2_000
    assert client.post("/api/run", json={"code": "print(1 + 1)"}).json()["stdout"] == "2\n"


@pytest.mark.parametrize("code, stderr", [
    ("import sys\nsys.stderr.write('a\\ud800b')", "a?b"),        # as stdout: the answer writes a lone surrogate as ?
    ("import sys, warnings\nsys.stderr = None\nwarnings.warn('lost')\nprint('ok')", ""),
    ("import warnings\nwarnings.showwarning = lambda *a, **k: print('mine', a[0])\nwarnings.warn('w')", ""),
    ("import sys\nsys.stderr.write(b'bytes')", ""),
])
def test_odd_stderr_is_answered(client, code, stderr):
    r = client.post("/api/run", json={"code": code})
    assert r.status_code == 200
    rec = r.json()
    assert rec["stderr"] == stderr
    assert rec["error"] is None or rec["error"]["kind"] == "runtime_error"
