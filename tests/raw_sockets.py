"""Raw loopback sockets for the tests that send half requests (slow headers, slow bodies, floods)."""
from __future__ import annotations

import socket


def connect(base: str, source: str, send: bytes = b"") -> socket.socket:
    """A connection to the server at `base` (http://host:port) from loopback address `source`,
    having sent `send` (often a request cut short)."""
    host, port = base.removeprefix("http://").rsplit(":", 1)
    s = socket.create_connection((host, int(port)), timeout=5, source_address=(source, 0))
    if send:
        s.sendall(send)
    return s


def closed_by_server(s: socket.socket, within: float) -> bytes | None:
    """What the server wrote before closing `s` within `within` s, or None if it stayed open."""
    s.settimeout(within)
    got = b""
    try:
        while chunk := s.recv(65536):
            got += chunk
        return got
    except (socket.timeout, TimeoutError):
        return None
    except ConnectionResetError:
        return got
