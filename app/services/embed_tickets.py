"""One-time tickets for an embedded page's address (issue 17: the `dagscope` Jupyter helper).

With an access token, the notebook's <iframe> must get in without the token in its address: an
address is kept in the browser's history, the notebook's saved output and servers' logs. The
helper, which holds the token, asks for a ticket (POST /api/embed-tickets, the token as its
Bearer) naming the one page it opens (`/s/<id>`); the frame's address carries the ticket, which
opens that page once, within TICKET_TTL_S, and is then worth nothing. The page it opens keeps a
session cookie that is not the token (`session`: an expiry and its MAC under the token, good for
SESSION_TTL_S), so a leaked ticket redeemed by someone else gives them a class's worth of access,
never the token itself (nothing they hold can be turned into a `?token=` link or outlive a new token).

A ticket is `<expiry>.<nonce>.<mac>`: the MAC (HMAC-SHA256 under the access token) binds the path
and the expiry, so any replica sharing the token can check it without a shared store. Single use
is kept per server process (a set of the nonces redeemed, forgotten at their expiry): behind
several replicas a ticket replayed within its TTL could open the page once on each other replica
(docs/security.md says so); the address alone no longer holds the token.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
import threading
import time

TICKET_TTL_S = 120             # the cell's output is shown at once (the frame loads eagerly with a ticket)
PATH = re.compile(r"/s/[A-Za-z0-9_-]{4,32}")
TICKET = re.compile(r"(\d{1,12})\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})")
SESSION_TTL_S = 12 * 3600      # a school day: the embedded page's later reads and writes
SESSION = re.compile(r"s\.(\d{1,12})\.([A-Za-z0-9_-]{43})")

_used: dict[str, float] = {}   # nonce -> expiry
_lock = threading.Lock()


def _mac(token: str, path: str, expiry: int, nonce: str) -> str:
    return _hmac(token, f"embed-ticket|{path}|{expiry}|{nonce}")


def _hmac(token: str, message: str) -> str:
    digest = hmac.new(token.encode(), message.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def issue(token: str, path: str, now: float | None = None) -> str:
    """A ticket opening `path` once within TICKET_TTL_S."""
    if not PATH.fullmatch(path):
        raise ValueError("a ticket opens a share link's page: /s/<id>")
    expiry = int((time.time() if now is None else now) + TICKET_TTL_S)
    nonce = secrets.token_urlsafe(16)
    return f"{expiry}.{nonce}.{_mac(token, path, expiry, nonce)}"


def redeem(ticket: str, token: str, path: str, now: float | None = None) -> bool:
    """True once for a ticket issued under `token` for `path` and not yet expired."""
    found = TICKET.fullmatch(ticket or "")
    if not found or not token:
        return False
    expiry, nonce, mac = int(found.group(1)), found.group(2), found.group(3)
    now = time.time() if now is None else now
    if expiry < now or expiry > now + TICKET_TTL_S + 5:
        return False
    if not hmac.compare_digest(mac, _mac(token, path, expiry, nonce)):
        return False
    with _lock:
        for old in [n for n, e in _used.items() if e < now]:
            del _used[old]
        if nonce in _used:
            return False
        _used[nonce] = expiry
    return True


def session(token: str, now: float | None = None) -> str:
    """The cookie a redeemed ticket sets: `s.<expiry>.<mac>`, valid until its expiry under `token`."""
    expiry = int((time.time() if now is None else now) + SESSION_TTL_S)
    return f"s.{expiry}.{_hmac(token, f'embed-session|{expiry}')}"


def session_valid(value: str, token: str, now: float | None = None) -> bool:
    found = SESSION.fullmatch(value or "")
    if not found or not token:
        return False
    expiry, now = int(found.group(1)), time.time() if now is None else now
    if expiry < now or expiry > now + SESSION_TTL_S + 5:
        return False
    return hmac.compare_digest(found.group(2), _hmac(token, f"embed-session|{expiry}"))
