"""The record's way from the supervisor to the server (app/sandbox/protocol.py): a memfd the
supervisor fills from the child's pipe and seals; the server maps it read-only and takes only a
sealed one within the pipe's bound."""
import os
import socket

import pytest

from app.sandbox.protocol import SharedBuffer, recv_sealed, send_sealed


def _filled(data: bytes, capacity: int) -> SharedBuffer:
    r, w = os.pipe()
    os.write(w, data)
    os.close(w)
    buf = SharedBuffer(capacity)
    while buf.readinto(r) > 0:
        pass
    os.close(r)
    return buf


def _sent(fd: int, max_bytes: int):
    ours, theirs = socket.socketpair()
    with ours, theirs:
        send_sealed(theirs, fd)
        return recv_sealed(ours, max_bytes)


def test_the_server_gets_the_bytes_the_pipe_carried_and_cannot_change_them():
    buf = _filled(b"record and values", 1 << 20)
    try:
        view = _sent(buf.seal(), 1 << 20)
    finally:
        buf.close()
    assert bytes(view) == b"record and values"
    assert view.readonly
    with pytest.raises(TypeError):
        view[0] = 0


def test_a_full_buffer_says_so_instead_of_reading_on():
    r, w = os.pipe()
    os.write(w, b"x" * 10)
    buf = SharedBuffer(8)
    assert buf.readinto(r) == 8 and buf.readinto(r) == -1      # the supervisor then reads one byte more
    assert os.read(r, 1) == b"x"
    for fd in (r, w):
        os.close(fd)
    buf.close()


def test_an_unsealed_or_too_large_buffer_is_refused():
    fd = os.memfd_create("forged", os.MFD_ALLOW_SEALING)
    os.write(fd, b"{}")
    try:
        with pytest.raises(ValueError, match="not sealed"):
            _sent(fd, 1 << 20)
    finally:
        os.close(fd)
    buf = _filled(b"y" * 100, 1 << 20)
    try:
        with pytest.raises(ValueError, match="exceeds"):
            _sent(buf.seal(), 99)
    finally:
        buf.close()


def test_an_empty_record_is_empty():
    buf = SharedBuffer(1 << 20)
    try:
        assert bytes(_sent(buf.seal(), 1 << 20)) == b""
    finally:
        buf.close()
