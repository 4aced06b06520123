"""The HTTP server's own guards against slow and piled-up connections (uvicorn, h11).

uvicorn keeps a connection open for as long as its request is incomplete: 21,000 clients that
sent half a request each used up the server's descriptors, and /healthz failed. GuardedH11Protocol
adds what is missing:
- a deadline for a request's headers (DAGSCOPE_HEADER_TIMEOUT, from the connection or the end of
  the previous answer) and one for its body (DAGSCOPE_BODY_TIMEOUT, from the end of its headers):
  past it the connection gets a 408 and is closed;
- a cap on open connections, per client address (DAGSCOPE_CONNECTIONS_PER_CLIENT) and in all
  (DAGSCOPE_MAX_CONNECTIONS, at most half the descriptors the process may open). A new
  connection over a cap closes the oldest one that is waiting for a request (the client holding
  the most connections first), so idle and half-sent connections cannot lock anyone out; if none
  is waiting, the new one is closed;
- malformed or oversized request heads get a JSON answer (431 for headers over h11's 16 KB).
"""
from __future__ import annotations

import json
import resource
import time

import h11
from h11._connection import DEFAULT_MAX_INCOMPLETE_EVENT_SIZE
from uvicorn.protocols.http.h11_impl import H11Protocol

from app.config import get_settings

DESCRIPTOR_RESERVE = 256        # files, pipes and sockets the server needs beyond its connections


def raise_open_file_limit() -> int:
    """Raise RLIMIT_NOFILE's soft limit to its hard limit; returns the soft limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):
            pass
    return soft


def connection_cap() -> int:
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    by_descriptors = max(16, (soft - DESCRIPTOR_RESERVE) // 2) if soft != resource.RLIM_INFINITY else 1 << 20
    return max(1, min(get_settings().max_connections, by_descriptors))


def _raw_reply(status: int, reason: str, detail: str) -> bytes:
    body = json.dumps({"detail": detail}).encode()
    return (f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n"
            f"content-length: {len(body)}\r\nconnection: close\r\n\r\n").encode() + body


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with request deadlines and connection caps (module docstring)."""

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        settings = get_settings()
        self.header_timeout_s, self.body_timeout_s = settings.header_timeout_s, settings.body_timeout_s
        self.opened_at = time.monotonic()
        self.deadline = None
        self.phase = ""
        self.head_bytes, self.head_tail = 0, b""
        self.max_head_bytes = self.config.h11_max_incomplete_event_size or DEFAULT_MAX_INCOMPLETE_EVENT_SIZE
        self._enter_phase("head")
        self._enforce_caps(settings.connections_per_client)

    def connection_lost(self, exc) -> None:
        self._cancel_deadline()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self.phase == "head":
            # h11 bounds only a head that arrives in pieces; one that arrives whole is measured here
            seen = self.head_tail + data
            end = seen.find(b"\r\n\r\n")
            head = self.head_bytes + (len(data) if end < 0 else end + 4 - len(self.head_tail))
            self.head_bytes += len(data)
            self.head_tail = seen[-3:]
            if head > self.max_head_bytes:
                return self._refuse_head()
        super().data_received(data)
        self._follow_request()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._follow_request()

    # --- the request deadlines

    def _follow_request(self) -> None:
        """Arm the deadline that fits where the client is in its request."""
        state = self.conn.their_state
        if state is h11.IDLE:
            self._enter_phase("head")
        elif state is h11.SEND_BODY:
            self._enter_phase("body")
        else:                      # the whole request is in (or the connection is done)
            self._enter_phase("served")

    def _enter_phase(self, phase: str) -> None:
        if phase == self.phase:
            return
        self._cancel_deadline()
        self.phase = phase
        if phase == "head":
            self.head_bytes, self.head_tail = 0, b""
        timeout = {"head": self.header_timeout_s, "body": self.body_timeout_s}.get(phase)
        if timeout and timeout > 0 and not self.transport.is_closing():
            self.deadline = self.loop.call_later(timeout, self._deadline_passed, phase)

    def _cancel_deadline(self) -> None:
        if self.deadline is not None:
            self.deadline.cancel()
            self.deadline = None

    def _deadline_passed(self, phase: str) -> None:
        self.deadline = None
        if self.transport.is_closing():
            return
        if phase == "head":        # silent since the last answer: closed without a word, as keep-alive does
            unanswered = self.head_bytes > 0 and self.conn.our_state is h11.IDLE
        else:
            unanswered = self.cycle is not None and not self.cycle.response_started
        if unanswered:
            what, limit = ("headers", self.header_timeout_s) if phase == "head" else ("body", self.body_timeout_s)
            self.transport.write(_raw_reply(408, "Request Timeout",
                                            f"the request's {what} did not arrive within {limit:g} s"))
        self.transport.close()

    # --- the connection caps

    def _enforce_caps(self, per_client: int) -> None:
        mine = [c for c in self.connections if isinstance(c, GuardedH11Protocol) and c.client_host == self.client_host]
        if per_client > 0 and len(mine) > per_client:
            self._make_room(mine)
        if not self.transport.is_closing() and len(self.connections) > connection_cap():
            self._make_room([c for c in self.connections if isinstance(c, GuardedH11Protocol)])

    def _make_room(self, candidates: list[GuardedH11Protocol]) -> None:
        waiting = [c for c in candidates if c is not self and c.phase == "head" and not c.transport.is_closing()]
        if not waiting:
            self.transport.close()           # everyone there is being served: this one waits outside
            return
        per_host: dict[str, int] = {}
        for c in waiting:
            per_host[c.client_host] = per_host.get(c.client_host, 0) + 1
        victim = min(waiting, key=lambda c: (-per_host[c.client_host], c.opened_at))
        victim._cancel_deadline()
        victim.transport.close()
        victim.connections.discard(victim)   # counted out now, not when the loop gets to it

    @property
    def client_host(self) -> str:
        return self.client[0] if self.client else ""

    # --- malformed requests: a JSON answer

    def send_400_response(self, msg: str) -> None:
        if self.phase == "head" and self.head_bytes > self.max_head_bytes:
            return self._refuse_head()
        self._close_with(_raw_reply(400, "Bad Request", "the request is not valid HTTP/1.1"))

    def _refuse_head(self) -> None:
        self._close_with(_raw_reply(431, "Request Header Fields Too Large",
                                    f"the request's headers are larger than {self.max_head_bytes // 1024} KB"))

    def _close_with(self, reply: bytes) -> None:
        self._cancel_deadline()
        if not self.transport.is_closing():
            self.transport.write(reply)
            self.transport.close()
