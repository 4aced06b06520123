"""One-time tickets for an embedded page's address (app/services/embed_tickets.py): only a holder
of the access token gets one, it opens the one page it names once (and sets the session cookie),
and an expired, replayed, moved or tampered ticket opens nothing; the token is in no answer."""
import pytest

from app.services import embed_tickets

TOKEN = "classroom-token-not-in-any-address"


@pytest.fixture
def token_client(client, monkeypatch):
    monkeypatch.setenv("DAGSCOPE_ACCESS_TOKEN", TOKEN)
    client.cookies.clear()
    yield client
    client.cookies.clear()


def _snippet(client) -> str:
    r = client.post("/api/snippets", json={"code": "print(1)\n"}, headers={"Authorization": f"Bearer {TOKEN}"})
    assert r.status_code == 201
    return r.json()["id"]


def _ticket(client, path: str):
    return client.post("/api/embed-tickets", json={"path": path}, headers={"Authorization": f"Bearer {TOKEN}"})


def test_a_ticket_opens_its_page_once_and_sets_the_session(token_client):
    client = token_client
    snippet = _snippet(client)
    assert client.post("/api/embed-tickets", json={"path": f"/s/{snippet}"}).status_code == 401   # no token, no ticket
    r = _ticket(client, f"/s/{snippet}")
    assert r.status_code == 201 and TOKEN not in r.text and r.json()["expires_in"] == embed_tickets.TICKET_TTL_S
    ticket = r.json()["ticket"]
    page = client.get(f"/s/{snippet}?embed=1&ticket={ticket}")
    assert page.status_code == 200 and "dagscope_token=s." in page.headers["set-cookie"]
    assert TOKEN not in page.headers["set-cookie"]                     # a session, never the token itself
    assert client.post("/api/run", json={"code": "print(5)"}).json()["stdout"] == "5\n"      # the session it set
    session = client.cookies.get("dagscope_token")
    client.cookies.clear()
    assert client.get(f"/s/{snippet}?token={session}").status_code == 401   # not a token: no `?token=` link
    client.cookies.clear()
    assert client.get(f"/s/{snippet}?embed=1&ticket={ticket}").status_code == 401            # spent


def test_a_ticket_opens_nothing_else(token_client):
    client = token_client
    snippet, other = _snippet(client), _snippet(client)
    ticket = _ticket(client, f"/s/{snippet}").json()["ticket"]
    assert client.get(f"/s/{other}?embed=1&ticket={ticket}").status_code == 401              # another page
    assert client.get(f"/api/snippets/{snippet}?ticket={ticket}").status_code == 401          # an API route
    assert client.post(f"/s/{snippet}?ticket={ticket}").status_code in (401, 405)
    expiry, nonce, mac = ticket.split(".")
    assert client.get(f"/s/{snippet}?ticket={int(expiry) + 60}.{nonce}.{mac}").status_code == 401   # tampered
    assert client.get(f"/s/{snippet}?ticket={ticket}").status_code == 200                     # still good once
    assert _ticket(client, "/api/run").status_code == 422                                     # only a page's path


def test_an_expired_ticket_or_another_servers_is_refused():
    ticket = embed_tickets.issue(TOKEN, "/s/abcd1234", now=1_000_000)
    assert not embed_tickets.redeem(ticket, TOKEN, "/s/abcd1234", now=1_000_000 + embed_tickets.TICKET_TTL_S + 1)
    assert not embed_tickets.redeem(ticket, "another-token", "/s/abcd1234", now=1_000_001)
    assert embed_tickets.redeem(ticket, TOKEN, "/s/abcd1234", now=1_000_001)
    assert not embed_tickets.redeem(ticket, TOKEN, "/s/abcd1234", now=1_000_002)


def test_without_a_token_there_is_no_ticket_to_get(client):
    assert client.post("/api/embed-tickets", json={"path": "/s/abcd1234"}).status_code == 409


def test_a_session_is_good_until_its_expiry_and_only_under_its_token():
    now = 1_000_000.0
    cookie = embed_tickets.session(TOKEN, now=now)
    assert embed_tickets.session_valid(cookie, TOKEN, now=now + embed_tickets.SESSION_TTL_S - 1)
    assert not embed_tickets.session_valid(cookie, TOKEN, now=now + embed_tickets.SESSION_TTL_S + 1)   # expired
    assert not embed_tickets.session_valid(cookie, "another-token", now=now)      # a new token ends every session
    expiry = int(now + embed_tickets.SESSION_TTL_S)
    assert not embed_tickets.session_valid(cookie.replace(str(expiry), str(expiry + 3600)), TOKEN, now=now)   # forged
    far = embed_tickets.session(TOKEN, now=now + 10 * embed_tickets.SESSION_TTL_S)
    assert not embed_tickets.session_valid(far, TOKEN, now=now)                   # too far ahead to have been issued
    assert not embed_tickets.session_valid("s.1.x", TOKEN, now=now) and not embed_tickets.session_valid("", TOKEN)
