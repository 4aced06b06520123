"""The HTTP surface in-process: Host names, cross-site writes, JSON content type, non-finite
numbers and deep nesting, per-route write rates and the snippet store's quota (issue 13, class 5)."""
import json

import pytest

from app.json_body import MAX_DEPTH, json_problem
from app.origin import host_allowed, same_origin, served_names, split_host
from app.services.snippets import SnippetStore, SnippetStoreFull

JSON = {"content-type": "application/json"}


@pytest.fixture
def client(tmp_path, monkeypatch):
    monkeypatch.setenv("DAGSCOPE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("DAGSCOPE_RUN_TIMEOUT", "2")
    from fastapi.testclient import TestClient
    from app.main import create_app
    with TestClient(create_app()) as c:
        yield c


# --- Host

@pytest.mark.parametrize("host", ["evil.example", "evil.example:8000", "127.0.0.1.nip.io", "localhost.evil.example",
                                  "attacker.localhost.evil", "0.0.0.0:8000", "evil.example."])
def test_a_foreign_host_name_is_400(client, host):
    r = client.get("/api/examples", headers={"host": host})
    assert r.status_code == 400 and "does not answer to the name" in r.json()["detail"]


@pytest.mark.parametrize("host", ["localhost", "localhost:8000", "LOCALHOST:8000", "127.0.0.1:8000", "127.0.0.7",
                                  "[::1]:8000", "localhost.:8000"])
def test_local_names_are_served(client, host):
    assert client.get("/healthz", headers={"host": host}).status_code == 200


def test_the_host_check_covers_pages_health_and_writes(client):
    for method, path in [("GET", "/"), ("GET", "/healthz"), ("POST", "/api/run")]:
        r = client.request(method, path, headers={"host": "rebind.evil.example", **JSON}, content=b'{"code": ""}')
        assert r.status_code == 400, (method, path)


def test_allowed_hosts_from_the_environment(client, monkeypatch):
    assert client.get("/healthz", headers={"host": "dagscope.school.lan"}).status_code == 400
    monkeypatch.setenv("DAGSCOPE_ALLOWED_HOSTS", "testserver, Dagscope.School.LAN")
    assert client.get("/healthz", headers={"host": "dagscope.school.lan:8000"}).status_code == 200
    monkeypatch.setenv("DAGSCOPE_ALLOWED_HOSTS", "*")
    assert client.get("/healthz", headers={"host": "anything.example"}).status_code == 200


def test_the_served_host_and_the_lan_address_are_allowed(monkeypatch):
    from app.__main__ import lan_address
    monkeypatch.setenv("DAGSCOPE_ALLOWED_HOSTS", "")
    monkeypatch.setenv("DAGSCOPE_HOST", "192.0.2.10")
    assert host_allowed("192.0.2.10") and not host_allowed("192.0.2.11")
    monkeypatch.setenv("DAGSCOPE_HOST", "0.0.0.0")
    assert host_allowed(lan_address()) and lan_address() in served_names("0.0.0.0")
    assert not host_allowed("evil.example")
    monkeypatch.setenv("DAGSCOPE_HOST", "")           # uvicorn started directly: localhost only
    assert not host_allowed(lan_address()) or lan_address().startswith("127.")


@pytest.mark.parametrize("headers", [[("host", "localhost"), ("host", "evil.example")], [("host", "[::1].evil")],
                                     [("host", "localhost:99999999")], [("host", "")]])
def test_two_or_malformed_host_headers_are_refused(client, headers):
    r = client.get("/healthz", headers=headers)
    assert r.status_code == 400 and "Host header" in r.json()["detail"]


def test_split_host():
    assert split_host("Example.org:8000") == ("example.org", 8000)
    assert split_host("[::1]:80") == ("::1", 80) and split_host("[::1]") == ("::1", None)
    for bad in ["", ":80", "a:b", "[::1]x", "a:123456"]:
        with pytest.raises(ValueError):
            split_host(bad)


# --- Origin, Sec-Fetch-Site, content type

@pytest.mark.parametrize("origin", ["https://evil.example", "null", "http://testserver.evil.example",
                                    "http://testserver:8080", "https://testserver", "http://localhost",
                                    "http://testserver/path"])
def test_a_write_from_another_origin_is_403(client, origin):
    r = client.post("/api/snippets", json={"code": "x"}, headers={"origin": origin})
    assert r.status_code == 403 and "another web site" in r.json()["detail"]


def test_cross_site_fetch_metadata_is_403_even_without_origin(client):
    r = client.post("/api/run", json={"code": "print(1)"}, headers={"sec-fetch-site": "cross-site"})
    assert r.status_code == 403 and "Sec-Fetch-Site" in r.json()["detail"]


def test_same_origin_and_originless_writes_are_served(client):
    r = client.post("/api/run", json={"code": "print(1)"},
                    headers={"origin": "http://testserver", "sec-fetch-site": "same-origin"})
    assert r.status_code == 200 and r.json()["stdout"] == "1\n"
    assert client.post("/api/snippets", json={"code": "x"}).status_code == 201      # curl, scripts


def test_same_origin_compares_scheme_host_and_port():
    assert same_origin("http://localhost:8000", "localhost:8000", "http")
    assert same_origin("http://LOCALHOST", "localhost:80", "http")
    assert not same_origin("http://localhost:8001", "localhost:8000", "http")
    assert not same_origin("https://localhost:8000", "localhost:8000", "http")
    assert not same_origin("null", "localhost:8000", "http")


@pytest.mark.parametrize("content_type, body", [
    ("text/plain", b'{"code": "print(1)"}'),                       # what a cross-site form can send
    ("application/x-www-form-urlencoded", b"code=print(1)"),
    ("multipart/form-data; boundary=x", b'--x\r\nContent-Disposition: form-data; name="code"\r\n\r\n1\r\n--x--'),
    (None, b'{"code": "print(1)"}'),
])
@pytest.mark.parametrize("path", ["/api/run", "/api/snippets", "/api/render"])
def test_api_writes_need_a_json_content_type(client, path, content_type, body):
    headers = {"content-type": content_type} if content_type else {}
    r = client.post(path, content=body, headers=headers)
    assert r.status_code == 415 and "application/json" in r.json()["detail"]


def test_json_with_a_charset_is_json(client):
    r = client.post("/api/snippets", content=b'{"code": "x"}', headers={"content-type": "Application/JSON; charset=utf-8"})
    assert r.status_code == 201


# --- non-finite numbers and nesting

@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e999", "-1e400"])
@pytest.mark.parametrize("where", [
    ("/api/run", '{{"code": "print(1)", "options": {{"max_graphs": {n}}}}}'),
    ("/api/snippets", '{{"code": "x", "state": {{"step": {n}}}}}'),
    ("/api/render", '{{"graph": {{"nodes": [{{"id": "a", "weight": {n}}}], "edges": []}}}}'),
])
def test_non_finite_numbers_are_422_with_a_message(client, number, where):
    path, template = where
    r = client.post(path, content=template.format(n=number).encode(), headers=JSON)
    assert r.status_code == 422 and "numbers must be finite" in r.json()["detail"], r.text


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 660, 100_000])
@pytest.mark.parametrize("path, wrap", [
    ("/api/snippets", lambda nested: {"code": "x", "state": {"deep": nested}}),
    ("/api/run", lambda nested: {"code": "x", "options": {"max_graphs": nested}}),
    ("/api/render", lambda nested: {"graph": {"nodes": [{"id": "a", "extra": nested}], "edges": []}}),
])
def test_deep_nesting_is_422_with_a_message(client, depth, path, wrap):
    marker = '"@@"'
    body = json.dumps(wrap("@@")).replace(marker, "[" * depth + "]" * depth)
    r = client.post(path, content=body.encode(), headers=JSON)
    assert r.status_code == 422 and "nests deeper than" in r.json()["detail"], r.text[:300]


def test_ordinary_nesting_and_numbers_pass():
    assert json_problem(json.dumps({"a": [[[1.5, -2e300]]], "b": {"c": {"d": None}}}).encode()) == ""
    assert json_problem(b"not json") == ""            # left to the route's own 422
    assert "deeper" in json_problem(b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1))
    assert json_problem(b"[" * MAX_DEPTH + b"]" * MAX_DEPTH) == ""


def test_a_stored_snippet_with_a_finite_state_reads_back(client):
    sid = client.post("/api/snippets", json={"code": "x", "state": {"zoom": 1.5, "nested": [[1]]}}).json()["id"]
    assert client.get(f"/api/snippets/{sid}").json()["state"] == {"zoom": 1.5, "nested": [[1]]}


# --- per-route write rates

@pytest.mark.parametrize("path, env, body", [
    ("/api/snippets", "SNIPPET", {"code": "x"}),
    ("/api/render", "RENDER", {"graph": {"nodes": [{"id": "a"}], "edges": []}, "format": "dot"}),
])
def test_every_writing_route_has_its_own_rate(client, monkeypatch, path, env, body):
    monkeypatch.setenv(f"DAGSCOPE_{env}_RATE_PER_MIN", "6")
    monkeypatch.setenv(f"DAGSCOPE_{env}_RATE_BURST", "2")
    codes = [client.post(path, json=body) for _ in range(3)]
    assert [r.status_code for r in codes][:2] == [codes[0].status_code] * 2 and codes[0].status_code < 300
    assert codes[2].status_code == 429 and int(codes[2].headers["Retry-After"]) >= 1
    assert "too many" in codes[2].json()["detail"]
    assert client.post("/api/run", json={"code": "print(1)"}).status_code == 200     # another route's bucket


def test_the_servers_own_machine_is_not_rate_limited(client, monkeypatch):
    monkeypatch.setenv("DAGSCOPE_SNIPPET_RATE_PER_MIN", "1")
    monkeypatch.setenv("DAGSCOPE_SNIPPET_RATE_BURST", "1")
    monkeypatch.setenv("DAGSCOPE_UNLIMITED_CLIENTS", "testclient")
    assert all(client.post("/api/snippets", json={"code": "x"}).status_code == 201 for _ in range(4))


# --- the snippet store's quota

def test_the_quota_evicts_the_oldest_unopened_snippets(tmp_path):
    store = SnippetStore(tmp_path)
    first, second = (store.save("a" * 400, {}, quota_bytes=1000) for _ in range(2))
    assert store.load(first) is not None                # opened: kept
    third = store.save("b" * 400, {}, quota_bytes=1000)  # over 1000: the unopened `second` goes
    assert store.load(second) is None and store.load(first) and store.load(third)
    assert store.used_bytes() <= 1000


def test_the_quota_refuses_when_only_opened_snippets_are_left(tmp_path):
    store = SnippetStore(tmp_path)
    kept = [store.save("a" * 400, {}, quota_bytes=1000) for _ in range(2)]
    assert all(store.load(k) for k in kept)
    with pytest.raises(SnippetStoreFull, match="DAGSCOPE_SNIPPET_STORE_MB"):
        store.save("c" * 400, {}, quota_bytes=1000)
    assert all(store.load(k) for k in kept) and store.used_bytes() == 804


def test_a_full_store_is_507_with_a_message(client, monkeypatch):
    monkeypatch.setenv("DAGSCOPE_SNIPPET_RATE_PER_MIN", "0")
    monkeypatch.setenv("DAGSCOPE_SNIPPET_STORE_MB", "0.001")           # 1000 bytes
    sid = client.post("/api/snippets", json={"code": "a" * 600}).json()["id"]
    assert client.get(f"/s/{sid}").status_code == 200                 # opened by a student
    r = client.post("/api/snippets", json={"code": "b" * 600})
    assert r.status_code == 507 and "snippet store is full" in r.json()["detail"]
    assert client.get(f"/api/snippets/{sid}").status_code == 200


def test_a_store_from_before_the_quota_gets_its_columns(tmp_path):
    import sqlite3
    with sqlite3.connect(tmp_path / "snippets.sqlite3") as db:
        db.execute("CREATE TABLE snippets (id TEXT PRIMARY KEY, code TEXT NOT NULL, state TEXT NOT NULL, "
                   "created REAL NOT NULL)")
        db.execute("INSERT INTO snippets VALUES ('old12345', 'xyz', '{}', 0)")
    store = SnippetStore(tmp_path)
    assert store.used_bytes() == 5 and store.load("old12345")["code"] == "xyz"


def test_the_nesting_check_reads_brackets_outside_strings_only():
    from app.json_body import nests_deeper
    tricky = json.dumps({"s": "[[[[{{{{" * 20, "q": 'a\\"[[[', "b": "\\", "n": [[["]]]]"]]]})
    assert not nests_deeper(tricky.encode(), 4) and nests_deeper(tricky.encode(), 3)    # {} and [[[ ]]]
    assert nests_deeper(b"[{}]", 1) and not nests_deeper(b"[{}]", 2) and not nests_deeper(b"[[],[],{}]", 2)
