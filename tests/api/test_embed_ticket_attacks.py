"""Embed tickets (app/services/embed_tickets.py) from another site and replayed in other forms.

A browser that opened the class's link holds the token's cookie, so another site's page can make
it send that cookie: it must not get a ticket minted (a write from another origin is refused
before any route), nor open a page twice by writing the same ticket another way."""
import pytest

from app.services import embed_tickets

TOKEN = "classroom-token-for-ticket-attacks"


@pytest.fixture
def token_client(client, monkeypatch):
    monkeypatch.setenv("DAGSCOPE_ACCESS_TOKEN", TOKEN)
    client.cookies.clear()
    yield client
    client.cookies.clear()


def test_another_site_cannot_mint_a_ticket_with_the_cookie(token_client):
    client = token_client
    client.cookies.set("dagscope_token", TOKEN)
    for headers in ({"Origin": "https://evil.example"}, {"Origin": "null"}, {"Sec-Fetch-Site": "cross-site"}):
        answer = client.post("/api/embed-tickets", json={"path": "/s/abcd1234"}, headers=headers)
        assert answer.status_code == 403 and "ticket" not in answer.json(), (headers, answer.text)
    form = client.post("/api/embed-tickets", data={"path": "/s/abcd1234"})      # a cross-site form's body
    assert form.status_code == 415


def test_a_ticket_written_another_way_is_the_same_ticket():
    ticket = embed_tickets.issue(TOKEN, "/s/abcd1234", now=1_000_000)
    expiry, nonce, mac = ticket.split(".")
    assert embed_tickets.redeem(ticket, TOKEN, "/s/abcd1234", now=1_000_001)
    for again in (f"0{expiry}.{nonce}.{mac}", f"{expiry}.{nonce}.{mac}", f" {ticket}", ticket + "\n"):
        assert not embed_tickets.redeem(again, TOKEN, "/s/abcd1234", now=1_000_002), again
    assert not embed_tickets.redeem(ticket, TOKEN, "/s/abcd1234/", now=1_000_002)
