"""Shared fixtures: the engine's runner and a TestClient of the app; and a one-line notice at the
end of a run where real PyTorch, the oracle, is not installed (its tests were then skipped)."""
import importlib.util
import os
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]

# Starlette's TestClient sends `Host: testserver`; the app answers only to the names it serves
# (app/origin.py), so the test session adds that one (real servers it starts inherit it: harmless).
os.environ.setdefault("DAGSCOPE_ALLOWED_HOSTS", "testserver")


def real_torch_installed() -> bool:
    """`import torch` finds the real library (not absent, not a copy of Dagscope's facade)."""
    spec = importlib.util.find_spec("torch")
    if spec is None:
        return False
    origin = pathlib.Path(spec.origin or "").resolve()
    # a venv may live inside the checkout (make test's does): an installed package is not a copy
    return "site-packages" in origin.parts or not origin.is_relative_to(ROOT)


def pytest_terminal_summary(terminalreporter):
    if real_torch_installed():
        return
    skipped = [r for r in terminalreporter.stats.get("skipped", [])
               if isinstance(r.longrepr, tuple) and "torch" in str(r.longrepr[-1]).lower()]
    terminalreporter.write_line(f"NOTE: real PyTorch is not installed, so the oracle tests were skipped "
                                f"({len(skipped)} skips; `make test` installs torch==2.13.0 CPU)")


@pytest.fixture
def run():
    """Run pasted code in-process (no sandbox) and return its run record."""
    from engine.runner import run_user_code

    def _run(code: str, **options):
        return run_user_code(code, options)
    return _run


@pytest.fixture
def client():
    from fastapi.testclient import TestClient
    from app.main import create_app
    with TestClient(create_app()) as c:
        yield c


@pytest.fixture(scope="session")
def postgres():
    """One throwaway PostgreSQL server for the whole session (tests/postgres_server.py); each test
    takes a schema of its own with `postgres.fresh_schema_url()`."""
    from postgres_server import NotInstalled, PostgresServer
    server = PostgresServer()
    try:
        server.start()
    except NotInstalled as why:
        pytest.skip(str(why))
    yield server
    server.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request, tmp_path, monkeypatch):
    """Each backend in turn, as the app's settings see it: "" (SQLite in a temporary data folder)
    or a PostgreSQL URL with a schema of this test's own."""
    monkeypatch.setenv("DAGSCOPE_DATA_DIR", str(tmp_path / "data"))
    url = request.getfixturevalue("postgres").fresh_schema_url() if request.param == "postgresql" else ""
    monkeypatch.setenv("DAGSCOPE_DATABASE_URL", url)
    yield url
    from app.services import database, tensors
    tensors.close_stores()
    database.close_all()
