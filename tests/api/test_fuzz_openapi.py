"""Fuzz every operation of the API from its own OpenAPI schema: no input may cause a 5xx. Then
hostile JSON (non-finite numbers, deep nesting) anywhere in any route's body: a 422 with a message."""
import json

import pytest

schemathesis = pytest.importorskip("schemathesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from app.main import create_app  # noqa: E402

schema = schemathesis.openapi.from_asgi("/openapi.json", create_app())
_fuzz_app = create_app()


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


def test_the_fuzzer_reaches_the_routes(monkeypatch):
    """The sweep above is not stopped at the door: the Host, Origin and content-type checks let
    the test client's JSON through (else every case would be a 400, 403 or 415)."""
    from fastapi.testclient import TestClient
    with TestClient(create_app()) as client:
        assert client.post("/api/snippets", json={"code": "x"}).status_code == 201
        assert client.post("/api/render", json={"graph": {"nodes": [], "edges": []}, "format": "dot"}).status_code == 200


# Any JSON, with the values Python's parser accepts but strict JSON has not (NaN, +-Infinity, 1e999)
# and nesting beyond the limit, placed anywhere in a body of any route.
_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=12)


@given(route=st.sampled_from(["/api/run", "/api/snippets", "/api/render"]),
       key=st.sampled_from(["code", "options", "state", "graph", "format", "extra"]),
       value=_json_values, nest=st.one_of(st.none(), st.integers(17, 400)),
       overflow=st.sampled_from([None, "1e999", "-1e400"]))
@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_hostile_json_anywhere_is_a_4xx_with_a_message(route, key, value, nest, overflow):
    from fastapi.testclient import TestClient
    body = {"code": "print(1)", key: value}
    if nest is not None:
        body["state" if route == "/api/snippets" else key] = _nested(nest)
    text = json.dumps(body)                       # NaN and Infinity as Python writes them
    if overflow:
        text = text[:-1] + f', "big": {overflow}}}'
    with TestClient(_fuzz_app) as client:
        r = client.post(route, content=text.encode(), headers={"content-type": "application/json"})
    assert 400 <= r.status_code < 500 or r.status_code in (200, 201), (route, r.status_code, r.text[:300])
    assert r.status_code < 500
    if r.status_code >= 400:
        assert r.json()["detail"], r.text[:300]
    hostile = overflow or _has_non_finite(value) or (nest is not None and nest * 2 > 32)
    if hostile:
        assert r.status_code == 422, (route, text[:200], r.text[:200])


def _has_non_finite(value) -> bool:
    if isinstance(value, float):
        return value != value or value in (float("inf"), float("-inf"))
    children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    return any(_has_non_finite(v) for v in children)


def _nested(depth: int):
    value = 1
    for _ in range(depth):
        value = {"k": [value]}
    return value
