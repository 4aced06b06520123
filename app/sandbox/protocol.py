"""Length-prefixed frames over a stream socket: the wire between server, supervisor and child."""
from __future__ import annotations

import ctypes
import fcntl
import json
import mmap
import os
import socket
import struct
import weakref

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


# A run's record and values (a hundred megabytes for a transformer's) go from the supervisor to
# the server as a sealed memfd, not through the socket: the supervisor reads the child's pipe
# straight into it and the server maps it read-only, so the bytes are not copied twice more
# (socket, then joined) on a two-core machine.
_SEALS = fcntl.F_SEAL_SEAL | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_WRITE


class SharedBuffer:
    """A memfd of at most `capacity` bytes written in place (readinto); `seal()` fixes its size
    and contents for good. The writer's own (trusted) end: the server only ever maps it to read."""

    def __init__(self, capacity: int):
        self.fd = os.memfd_create("dagscope-record", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
        self.capacity = capacity
        self.size = 0
        self._map = None
        if capacity:
            os.ftruncate(self.fd, capacity)          # sparse: only the pages written are used
            self._map = mmap.mmap(self.fd, capacity)
        self._view = memoryview(self._map) if self._map is not None else memoryview(b"")

    def readinto(self, fd: int) -> int:
        """Read from `fd` into the free room (0 at end of file; -1 when there is no room left)."""
        if self.size >= self.capacity:
            return -1
        n = os.readv(fd, [self._view[self.size:]])
        self.size += n
        return n

    def seal(self) -> int:
        """Unmap, cut to what was written, and seal: nobody can change it after this."""
        self._view.release()
        if self._map is not None:
            self._map.close()
            self._map = None
        os.ftruncate(self.fd, self.size)
        fcntl.fcntl(self.fd, fcntl.F_ADD_SEALS, _SEALS)
        return self.fd

    def close(self) -> None:
        self._view.release()
        if self._map is not None:
            self._map.close()
            self._map = None
        os.close(self.fd)


def send_sealed(sock: socket.socket, fd: int) -> None:
    socket.send_fds(sock, [b"m"], [fd])


def recv_sealed(sock: socket.socket, max_bytes: int) -> memoryview:
    """The bytes of a sealed memfd sent with send_sealed, mapped read-only (no copy). Refused
    (ValueError) unless it is sealed against every change and at most `max_bytes` long."""
    return recv_sealed_resident(sock, max_bytes)[0]


def recv_sealed_resident(sock: socket.socket, max_bytes: int) -> tuple[memoryview, int]:
    """recv_sealed, and the bytes of memory the memfd holds (its written pages: a sparse one
    holds fewer than its length)."""
    msg, fds, _, _ = socket.recv_fds(sock, 1, 1, socket.MSG_CMSG_CLOEXEC)
    if not msg:
        raise ChannelClosed("connection closed")
    if len(fds) != 1:
        for fd in fds:
            os.close(fd)
        raise ValueError("no record came with the report")
    fd = fds[0]
    try:
        if fcntl.fcntl(fd, fcntl.F_GET_SEALS) & _SEALS != _SEALS:
            raise ValueError("the record's buffer is not sealed")
        st = os.fstat(fd)
        if st.st_size > max_bytes:
            raise ValueError(f"a record of {st.st_size} bytes exceeds {max_bytes}")
        if st.st_size == 0:
            return memoryview(b""), 0
        return _map_read_only(fd, st.st_size), st.st_blocks * 512
    finally:
        os.close(fd)


_libc = ctypes.CDLL(None, use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long)
_libc.munmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t)
_MAP_FAILED = ctypes.c_void_p(-1).value


def _map_read_only(fd: int, size: int) -> memoryview:
    """The memfd's bytes mapped read-only, holding no file descriptor: Python's mmap.mmap keeps a
    dup of the fd open as long as the mapping lives, and the server keeps runs' values mapped
    (app/services/tensors.py), so each kept run held a descriptor until the server ran out of them.
    The pages are unmapped when the last view of them (and every numpy array over it) is gone."""
    addr = _libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
    if addr is None or addr == _MAP_FAILED:
        err = ctypes.get_errno()
        raise OSError(err, f"the record could not be mapped: {os.strerror(err)}")
    pages = (ctypes.c_char * size).from_address(addr)
    weakref.finalize(pages, _libc.munmap, addr, size)
    return memoryview(pages).cast("B").toreadonly()


def values_memfd(size: int) -> int:
    """A memfd of exactly `size` bytes (sparse) for a run's tensor values, sealed against growing
    and shrinking: the child writes them in place (child.write_values), with no pipe between."""
    fd = os.memfd_create("dagscope-values", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    os.ftruncate(fd, size)
    fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW)
    return fd


def seal_written(fd: int) -> bool:
    """Seal a memfd another process wrote against any further change; False when a writable
    mapping of it still exists somewhere (the kernel refuses the seal)."""
    try:
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_WRITE | fcntl.F_SEAL_SEAL)
        return True
    except OSError:
        return False
