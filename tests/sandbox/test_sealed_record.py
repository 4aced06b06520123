"""The record's way from the supervisor to the server (app/sandbox/protocol.py): a memfd the
supervisor fills from the child's pipe and seals; the server maps it read-only and takes only a
sealed one within the pipe's bound. The values the child writes in place, into a memfd its
supervisor gave it, are checked as the ones on the pipe are (app/sandbox/values_channel.py)."""
import json
import os
import socket

import numpy as np
import pytest

from app.sandbox import values_channel
from app.sandbox.protocol import SharedBuffer, frame, recv_sealed, send_sealed


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


# -- the values the child writes in place (child.write_values into its supervisor's memfd) --------

INDEX = [{"id": "v1", "dtype": "float32", "shape": [3, 4], "nbytes": 48}]
VALUES = np.arange(12, dtype=np.float32)


def test_values_written_in_place_are_read_where_they_are_and_checked_alike():
    in_place = VALUES.tobytes() + bytes(100)            # the memfd is longer than what was written
    values = values_channel.parse(frame(json.dumps(INDEX).encode()), 1000, in_place, 4096)
    assert values.nbytes == 48 and (values.array("v1").ravel() == VALUES).all()
    with pytest.raises(values_channel.Malformed, match="counts 48 bytes, and 20 were written"):
        values_channel.parse(frame(json.dumps(INDEX).encode()), 1000, in_place[:20], 4096)
    with pytest.raises(values_channel.Malformed, match="counts 48 bytes, and 40 were written"):
        values_channel.parse(frame(json.dumps(INDEX).encode()), 40, in_place, 4096)    # the bound holds too
    # bytes on the pipe after the index win: the memfd is then not read
    piped = values_channel.parse(frame(json.dumps(INDEX).encode()) + frame(VALUES.tobytes()), 1000, b"", 0)
    assert (piped.array("v1").ravel() == VALUES).all()


def test_a_memfd_holding_more_pages_than_its_values_is_not_kept_whole(monkeypatch):
    """A program that wrote far past its values would have them kept with its values,
    unaccounted by the store's bound: the server keeps a copy of the values alone. (Values under
    COPY_BELOW are always copied, tests/sandbox/attacks/test_values_attacks.py; here the rule
    about pages alone.)"""
    monkeypatch.setattr(values_channel, "COPY_BELOW", 0)
    in_place = memoryview(VALUES.tobytes() + bytes(1 << 20))
    small = values_channel.parse(frame(json.dumps(INDEX).encode()), 1 << 21, in_place, 4096)
    assert isinstance(small.blob, memoryview) and small.blob.obj is in_place.obj     # no copy
    big = values_channel.parse(frame(json.dumps(INDEX).encode()), 1 << 21, in_place, 1 << 20)
    assert isinstance(big.blob, bytes) and len(big.blob) == 48


def test_a_sandboxed_runs_values_come_in_place(sandbox_run_values):
    record, kept = sandbox_run_values
    assert record["ok"] and record["run_id"] == "kept", record.get("error")
    # a view of the values memfd (max_values_bytes long), not of the record's buffer: the values
    # are over values_channel.COPY_BELOW (fewer bytes are copied, and the mapping let go)
    assert kept[0].nbytes >= values_channel.COPY_BELOW
    assert isinstance(kept[0].blob, memoryview) and len(kept[0].blob.obj) == 8 << 20
    assert kept[0].nbytes == 4 * 512 * 512 * len(kept[0].index)
    assert any((kept[0].array(ref) == 1.5).all() for ref in kept[0].index)


@pytest.fixture(scope="module")
def sandbox_run_values():
    from app.sandbox import ZYGOTE, runner
    from app.sandbox.limits import Limits
    kept = []
    record = runner.run_code("import torch\nx = torch.full((512, 512), 1.5, requires_grad=True)\n"
                             "(x * 2).sum().backward()\n", {},
                             Limits(timeout_s=10, max_values_bytes=8 << 20), zygote=ZYGOTE,
                             keep_values=lambda values: kept.append(values) or "kept")
    return record, kept


def test_values_that_cannot_be_written_in_place_follow_on_the_pipe():
    from types import SimpleNamespace

    from app.sandbox import child
    from app.sandbox.protocol import values_memfd
    store = SimpleNamespace(index=INDEX, chunks=[VALUES.tobytes()], size=48)
    for size, on_pipe in ((48, False), (40, True)):     # a memfd too small for them: the pipe
        fd = values_memfd(size)
        r, w = os.pipe()
        try:
            child.write_values(w, store, fd)
            os.close(w)
            data = os.read(r, 1 << 16)
            values = values_channel.parse(data, 1000, os.pread(fd, size, 0), 4096)
            assert (values.array("v1").ravel() == VALUES).all()
            assert (len(data) > len(frame(json.dumps(INDEX).encode()))) == on_pipe
        finally:
            os.close(r)
            os.close(fd)
