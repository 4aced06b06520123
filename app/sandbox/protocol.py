"""Length-prefixed frames over a stream socket: the wire between server, supervisor and child."""
from __future__ import annotations

import json
import socket
import struct

_HEADER = struct.Struct("!I")


class ChannelClosed(ConnectionError):
    """The other side closed the socket before a whole frame arrived."""


def frame(payload: bytes) -> bytes:
    return _HEADER.pack(len(payload)) + payload


def frame_header(size: int) -> bytes:
    """The length prefix of a frame of `size` bytes (for a frame written in pieces)."""
    return _HEADER.pack(size)


def first_frame(data: bytes | memoryview) -> tuple[bytes | memoryview, bytes | memoryview]:
    """The first frame of `data` and what follows it; ValueError when `data` holds no whole frame.
    Given a memoryview, both are views into it (a run's values may be a hundred megabytes)."""
    if len(data) < _HEADER.size:
        raise ValueError("no frame header")
    (size,) = _HEADER.unpack_from(data)
    end = _HEADER.size + size
    if end > len(data):
        raise ValueError(f"a frame of {size} bytes is cut short at {len(data) - _HEADER.size}")
    return data[_HEADER.size:end], data[end:]


def send_frame(sock: socket.socket, payload: bytes) -> None:
    sock.sendall(frame_header(len(payload)))     # apart: no copy of a large payload
    sock.sendall(payload)


def recv_frame(sock: socket.socket, max_bytes: int) -> bytes:
    """Read one frame; a frame longer than `max_bytes` is refused (the sender is not trusted)."""
    (size,) = _HEADER.unpack(_recv_exact(sock, _HEADER.size))
    if size > max_bytes:
        raise ValueError(f"frame of {size} bytes exceeds {max_bytes}")
    return _recv_exact(sock, size)


def send_json(sock: socket.socket, obj) -> None:
    send_frame(sock, json.dumps(obj).encode())


def recv_json(sock: socket.socket, max_bytes: int = 1 << 20):
    return json.loads(recv_frame(sock, max_bytes))


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    chunks, got = [], 0
    while got < n:
        chunk = sock.recv(min(n - got, 1 << 20))
        if not chunk:
            raise ChannelClosed("connection closed")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)
