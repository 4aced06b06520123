"""The HTTP server's own guards against slow and piled-up connections (uvicorn, h11).

uvicorn keeps a connection open for as long as its request is incomplete: 21,000 clients that
sent half a request each used up the server's descriptors, and /healthz failed. GuardedH11Protocol
adds what is missing:
- a deadline for a request's headers (DAGSCOPE_HEADER_TIMEOUT, from the connection or the end of
  the previous answer) and one for its body (DAGSCOPE_BODY_TIMEOUT, from the end of its headers):
  past it the connection gets a 408 and is closed;
- a cap on open connections, per client address (DAGSCOPE_CONNECTIONS_PER_CLIENT) and in all
  (DAGSCOPE_MAX_CONNECTIONS, at most half the descriptors the process may open). A new
  connection over a cap closes the oldest one that is waiting for a request (over the global
  cap: of the client holding the most connections), so idle and half-sent connections cannot
  lock anyone out; if none is waiting, the new one is closed;
- a client that stops reading its answer (writing stalls) is cut off after DAGSCOPE_BODY_TIMEOUT;
- malformed or oversized request heads get a JSON answer (431 for headers over h11's 16 KB).
"""
from __future__ import annotations

import json
import resource
import time
from dataclasses import dataclass

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


def connection_cap(max_connections: int) -> int:
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    by_descriptors = max(16, (soft - DESCRIPTOR_RESERVE) // 2) if soft != resource.RLIM_INFINITY else 1 << 20
    return max(1, min(max_connections, by_descriptors))


@dataclass(frozen=True)
class Limits:
    """The guard's settings, read once per server: reading the environment costs ~0.1-0.2 ms,
    which a flood of connections would otherwise pay on the event loop for each one."""
    header_timeout_s: float
    body_timeout_s: float
    per_client: int
    max_connections: int

    @classmethod
    def of(cls, server_state) -> Limits:
        limits = getattr(server_state, "dagscope_limits", None)
        if limits is None:
            settings = get_settings()
            limits = server_state.dagscope_limits = cls(
                settings.header_timeout_s, settings.body_timeout_s, settings.connections_per_client,
                connection_cap(settings.max_connections))
        return limits


def _raw_reply(status: int, reason: str, detail: str) -> bytes:
    body = json.dumps({"detail": detail}).encode()
    return (f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n"
            f"content-length: {len(body)}\r\nconnection: close\r\n\r\n").encode() + body


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with request deadlines and connection caps (module docstring)."""

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        self.limits = limits = Limits.of(self.server_state)
        self.header_timeout_s, self.body_timeout_s = limits.header_timeout_s, limits.body_timeout_s
        self.opened_at = time.monotonic()
        self.deadline = self.write_deadline = None
        self.phase = ""
        self.head_bytes, self.head_tail = 0, b""
        self.max_head_bytes = self.config.h11_max_incomplete_event_size or DEFAULT_MAX_INCOMPLETE_EVENT_SIZE
        self._enter_phase("head")
        self._enforce_caps(limits.per_client)

    def connection_lost(self, exc) -> None:
        self._cancel_deadline()
        if self.write_deadline is not None:
            self.write_deadline.cancel()
        self._unregister()
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

    # --- a client that does not read its answer: writing stalls, and after the body deadline
    # the connection is closed (its task then ends instead of waiting on the socket forever)

    def pause_writing(self) -> None:
        super().pause_writing()
        if self.write_deadline is None and self.body_timeout_s > 0:
            self.write_deadline = self.loop.call_later(self.body_timeout_s, self._stalled)

    def resume_writing(self) -> None:
        super().resume_writing()
        if self.write_deadline is not None:
            self.write_deadline.cancel()
            self.write_deadline = None

    def _stalled(self) -> None:
        self.write_deadline = None
        self.transport.abort()

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

    def _by_client(self) -> dict[str, dict[GuardedH11Protocol, None]]:
        """This server's open connections per client address, oldest first (kept on its state)."""
        registry = getattr(self.server_state, "dagscope_by_client", None)
        if registry is None:
            registry = self.server_state.dagscope_by_client = {}
        return registry

    def _register(self) -> None:
        self._by_client().setdefault(self.client_host, {})[self] = None

    def _unregister(self) -> None:
        registry = self._by_client()
        mine = registry.get(self.client_host)
        if mine is not None:
            mine.pop(self, None)
            if not mine:
                del registry[self.client_host]
        self.connections.discard(self)       # counted out now, not when the loop gets to it

    def _enforce_caps(self, per_client: int) -> None:
        self._register()
        registry = self._by_client()
        if per_client > 0 and len(registry[self.client_host]) > per_client:
            self._make_room(registry[self.client_host])
        if not self.transport.is_closing() and len(self.connections) > self.limits.max_connections:
            busiest = max(registry.values(), key=len)
            if not self._make_room(busiest, close_self=False):
                self._make_room({c: None for conns in registry.values() for c in conns})

    def _make_room(self, candidates, close_self: bool = True) -> bool:
        """Close the oldest of `candidates` waiting for a request; if none is, close this one
        (everyone there is being served: the newcomer waits outside). True if room was made."""
        victim = next((c for c in candidates if c is not self and c.phase == "head"
                       and not c.transport.is_closing()), None)
        if victim is None:
            if close_self:
                self._unregister()
                self.transport.close()
            return False
        victim._cancel_deadline()
        victim._unregister()
        victim.transport.close()
        return True

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
