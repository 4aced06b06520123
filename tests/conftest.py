"""Shared fixtures: the engine's runner and a TestClient of the app."""
import pytest


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
