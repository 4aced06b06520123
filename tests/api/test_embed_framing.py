"""The embed page (`?embed=1`) may be framed, and only it, and only by DAGSCOPE_EMBED_ANCESTORS
(default 'self'); every other answer still forbids framing (clickjacking: a framing page laying its
buttons over Run or Share), and the embed page keeps the Host, Origin and token protections.
app/security_headers.py; docs/security.md, "Framing"."""
import re

import pytest
from fastapi.testclient import TestClient

from app.main import create_app


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app()) as c:
        yield c


def ancestors(r) -> str:
    return re.search(r"frame-ancestors ([^;]*)", r.headers["content-security-policy"]).group(1)


def test_pages_are_not_framed_but_the_embed_page_is_by_itself(client):
    page = client.get("/")
    assert ancestors(page) == "'none'" and page.headers["x-frame-options"] == "DENY"
    embed = client.get("/?embed=1")
    assert embed.status_code == 200
    assert ancestors(embed) == "'self'" and embed.headers["x-frame-options"] == "SAMEORIGIN"
    assert "script-src 'self'" in embed.headers["content-security-policy"]     # the rest of the policy as strict


def test_configured_ancestors_frame_the_embed_page_only(client, monkeypatch):
    monkeypatch.setenv("DAGSCOPE_EMBED_ANCESTORS", "'self', http://localhost:8888, https://*.course.example.edu")
    embed = client.get("/?embed=1&view=backward")
    assert ancestors(embed) == "'self' http://localhost:8888 https://*.course.example.edu"
    assert "x-frame-options" not in embed.headers      # it cannot name them: frame-ancestors governs
    for other in (client.get("/"), client.get("/?embed=0"), client.get("/?embed=true"), client.get("/?embed=1&embed=1"),
                  client.get("/s/nosuchlink"), client.post("/?embed=1")):
        assert "frame-ancestors 'none'" in other.headers["content-security-policy"], other.request.url
        assert other.headers.get("x-frame-options") == "DENY"
    for not_a_page in (client.get("/api/examples?embed=1"), client.get("/static/js/app.js?embed=1"),
                       client.get("/healthz?embed=1")):
        assert not_a_page.headers["content-security-policy"].startswith("default-src 'none'")
        assert "frame-ancestors 'none'" in not_a_page.headers["content-security-policy"]
        assert not_a_page.headers["x-frame-options"] == "DENY"


@pytest.mark.parametrize("setting", [
    "*", "http://a.example; script-src *", "http://a.example script-src", "javascript:alert(1)", "'unsafe-inline'",
    "data:", "http://a.example/path", "https://evil.example'", "'none' http://a.example;", "http:// a.example",
])
def test_a_setting_cannot_add_a_directive_or_open_framing_to_all(client, monkeypatch, setting):
    monkeypatch.setenv("DAGSCOPE_EMBED_ANCESTORS", setting)
    policy = client.get("/?embed=1").headers["content-security-policy"]
    assert policy.count(";") == policy_template_semicolons(client)          # no directive added
    framing = re.search(r"frame-ancestors ([^;]*)", policy).group(1)
    assert framing == "'none'" or framing.split() == ["http://a.example"], framing
    assert "*" not in framing.replace("*.", "") and "script-src *" not in policy


def policy_template_semicolons(client) -> int:
    return client.get("/").headers["content-security-policy"].count(";")


def test_the_embed_page_keeps_the_origin_and_token_protections(client, monkeypatch):
    monkeypatch.setenv("DAGSCOPE_EMBED_ANCESTORS", "http://localhost:8888")
    # a framing page (or any other site) may not write through the browser: Origin and Sec-Fetch-Site
    framed = {"Origin": "http://localhost:8888", "Content-Type": "application/json"}
    assert client.post("/api/run", headers=framed, content='{"code": "print(1)"}').status_code == 403
    assert client.post("/api/snippets", headers={**framed, "Origin": "null"}, content='{"code": "x"}').status_code == 403
    assert client.post("/api/run", headers={"Sec-Fetch-Site": "cross-site", "Content-Type": "application/json"},
                       content='{"code": "print(1)"}').status_code == 403
    # DNS rebinding: another Host is refused, embed or not
    assert client.get("/?embed=1", headers={"Host": "evil.example"}).status_code == 400
    monkeypatch.setenv("DAGSCOPE_ACCESS_TOKEN", "s3cret-token-for-the-class")
    assert client.get("/?embed=1").status_code == 401
    assert client.get("/?embed=1&token=s3cret-token-for-the-class").status_code == 200
