"""Fuzz every operation of the API from its own OpenAPI schema: no input may cause a 5xx."""
import pytest

schemathesis = pytest.importorskip("schemathesis")
from hypothesis import HealthCheck, settings  # noqa: E402

from app.main import create_app  # noqa: E402

schema = schemathesis.openapi.from_asgi("/openapi.json", create_app())


@pytest.fixture(autouse=True)
def small_limits(monkeypatch):
    monkeypatch.setenv("DAGSCOPE_RUN_TIMEOUT", "2")
    monkeypatch.setenv("DAGSCOPE_RENDER_TIMEOUT", "2")
    monkeypatch.setenv("DAGSCOPE_RATE_PER_MIN", "0")     # the fuzzer is one client sending many runs
    for kind in ("SNIPPET", "RENDER", "WRITE"):
        monkeypatch.setenv(f"DAGSCOPE_{kind}_RATE_PER_MIN", "0")


@schema.parametrize()
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_no_input_makes_the_server_fail(case):
    response = case.call()
    assert response.status_code < 500, (case.method, case.path, response.status_code, response.text[:500])
