"""Every response carries a Content-Security-Policy, nosniff and no-referrer (app/security_headers.py);
the page's policy admits only this server's scripts and the editor's <style> by this response's nonce."""
import re

PAGE_MUST = ["default-src 'self'", "script-src 'self'", "object-src 'none'", "base-uri 'none'",
             "frame-ancestors 'none'", "form-action 'self'", "connect-src 'self'", "img-src 'self' data: blob:"]


def test_the_page_has_a_strict_policy_with_a_fresh_style_nonce(client):
    first, second = client.get("/"), client.get("/")
    policy = first.headers["content-security-policy"]
    for directive in PAGE_MUST:
        assert directive in policy
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
    nonce = re.search(r"'nonce-([\w-]+)'", policy).group(1)
    assert f'<meta name="dagscope-style-nonce" content="{nonce}">' in first.text
    assert nonce not in second.headers["content-security-policy"]         # one per response
    assert first.headers["x-content-type-options"] == "nosniff"
    assert first.headers["referrer-policy"] == "no-referrer"
    assert not re.search(r"<script(?![^>]*(\bsrc=|type=\"application/json\"))", first.text)   # no inline script


def test_a_missing_share_link_page_has_the_page_policy(client):
    r = client.get("/s/nosuchlink")
    assert r.status_code == 404 and "script-src 'self'" in r.headers["content-security-policy"]


def test_every_other_answer_allows_nothing(client):
    answers = [client.get("/healthz"), client.get("/api/examples"), client.get("/static/js/app.js"),
               client.get("/no/such/route"), client.post("/api/run", json={"code": 1}),
               client.post("/api/render", json={"graph": {"nodes": [{"id": "a"}], "edges": []}, "format": "svg"})]
    for r in answers:
        assert r.headers["content-security-policy"].startswith("default-src 'none'"), (r.request.url, r.status_code)
        assert r.headers["x-content-type-options"] == "nosniff" and r.headers["referrer-policy"] == "no-referrer"
