"""The files a run leaves in its working folder, collected by the trusted supervisor after the
run's child has ended (docs/run-record.md, "Files").

The child opens its scratch folder (the tmpfs root, in its own mount namespace) before any
pasted code runs and passes that descriptor to the supervisor; the open descriptor keeps the
tmpfs readable after the namespace is gone. What is in the folder is the program's doing, so
everything here is hostile: names (control and bidirectional characters, very long ones),
kinds (symlinks, hard links to other files, FIFOs, devices), sizes (sparse files), counts. Only
regular files with one link are read, through openat from the folder's descriptor, never
following a symlink, and within the count and byte bounds; what is left out is named with why.
"""
from __future__ import annotations

import hashlib
import os
import stat
import unicodedata
from dataclasses import dataclass, field

MAX_DEPTH = 4                    # folders below the working folder that are looked into
MAX_ENTRIES_PER_FOLDER = 2000    # entries of one folder looked at (a run can make 100,000)
MAX_VISITED = 5000               # entries looked at in all
MAX_NAME_CHARS = 200             # a shown name is cut to this many characters
MAX_LEFT_OUT_NAMED = 20          # left-out files named one by one; the rest are counted
ENGINE_FOLDERS = frozenset({".kernels"})   # the engine's own kernel cache (compile_broker.py)
_CHUNK = 1 << 20


@dataclass
class Collected:
    files: list = field(default_factory=list)       # (name, bytes), in name order
    left_out: list = field(default_factory=list)    # (name, why), at most MAX_LEFT_OUT_NAMED
    more_left_out: int = 0                          # left out past those named

    def leave_out(self, name: str, why: str) -> None:
        if len(self.left_out) < MAX_LEFT_OUT_NAMED:
            self.left_out.append((name, why))
        else:
            self.more_left_out += 1

    def index(self) -> dict:
        """What the supervisor tells the server (the bytes follow, one frame per file)."""
        return {"files": [{"name": name, "size": len(data)} for name, data in self.files],
                "left_out": [{"name": name, "why": why} for name, why in self.left_out],
                "more_left_out": self.more_left_out}


def safe_name(raw: str) -> str:
    """A name fit to show and to offer as a download: control, format (U+202E and the other
    bidirectional overrides, zero-width characters), unassigned and surrogate characters, and
    undecodable bytes become U+FFFD; cut to MAX_NAME_CHARS (keeping its end, where the suffix is)."""
    out = []
    for ch in raw:
        category = unicodedata.category(ch)
        out.append("\ufffd" if category[0] == "C" or category in ("Zl", "Zp") else ch)
    name = "".join(out)
    if len(name) > MAX_NAME_CHARS:
        name = name[:MAX_NAME_CHARS // 2 - 1] + "…" + name[-(MAX_NAME_CHARS // 2):]
    return name


def collect(folder_fd: int, max_count: int, max_bytes: int, max_file_bytes: int) -> Collected:
    """The regular files below the folder `folder_fd` (at most `max_count`, `max_bytes` together,
    `max_file_bytes` each), read from their descriptors; never raises for what the run made."""
    found = Collected()
    budget = {"visited": 0, "bytes": max_bytes}
    _walk(folder_fd, "", 0, found, budget, max_count, max_file_bytes)
    return found


def _walk(dir_fd: int, prefix: str, depth: int, found: Collected, budget: dict, max_count: int,
          max_file_bytes: int) -> None:
    try:
        with os.scandir(dir_fd) as entries:
            names = []
            for entry in entries:
                names.append(entry.name)
                if len(names) >= MAX_ENTRIES_PER_FOLDER:
                    found.leave_out(safe_name(prefix) or ".", f"the folder has more than "
                                    f"{MAX_ENTRIES_PER_FOLDER} entries; only that many were looked at")
                    break
    except OSError as exc:
        found.leave_out(safe_name(prefix) or ".", f"the folder could not be read ({exc.strerror})")
        return
    for raw in sorted(names):
        if budget["visited"] >= MAX_VISITED:
            found.leave_out(safe_name(prefix + raw), f"more than {MAX_VISITED} entries in all")
            continue
        budget["visited"] += 1
        if depth == 0 and raw in ENGINE_FOLDERS:
            continue
        name = safe_name(prefix + raw)
        try:
            st = os.stat(raw, dir_fd=dir_fd, follow_symlinks=False)
        except OSError as exc:
            found.leave_out(name, f"could not be looked at ({exc.strerror})")
            continue
        if stat.S_ISDIR(st.st_mode):
            if depth + 1 > MAX_DEPTH:
                found.leave_out(name + "/", f"folders more than {MAX_DEPTH} deep are not looked into")
                continue
            try:
                sub = os.open(raw, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
            except OSError as exc:
                found.leave_out(name + "/", f"could not be opened ({exc.strerror})")
                continue
            try:
                _walk(sub, prefix + raw + "/", depth + 1, found, budget, max_count, max_file_bytes)
            finally:
                os.close(sub)
        elif not stat.S_ISREG(st.st_mode):
            found.leave_out(name, f"not a regular file (a {_kind(st.st_mode)})")
        elif st.st_nlink != 1:
            found.leave_out(name, "a hard link (it has other names): only files with one name are collected")
        elif len(found.files) >= max_count:
            found.leave_out(name, f"more than {max_count} files")
        elif st.st_size > min(max_file_bytes, budget["bytes"]):
            found.leave_out(name, f"{st.st_size} bytes: " + (
                f"larger than {max_file_bytes} bytes, the most kept of one file" if st.st_size > max_file_bytes
                else f"past the {budget['bytes']} bytes left of what is kept of a run's files"))
        else:
            data, why = _read(dir_fd, raw, st, min(max_file_bytes, budget["bytes"]))
            if data is None:
                found.leave_out(name, why)
                continue
            budget["bytes"] -= len(data)
            found.files.append((name, data))


def _read(dir_fd: int, raw: str, seen: os.stat_result, limit: int) -> tuple[bytes | None, str]:
    """The file's bytes, read from a descriptor that is the same regular file `seen` described
    (O_NONBLOCK: a FIFO swapped in does not block the open), at most `limit` bytes."""
    try:
        fd = os.open(raw, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC, dir_fd=dir_fd)
    except OSError as exc:
        return None, f"could not be opened ({exc.strerror})"
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or (st.st_dev, st.st_ino) != (seen.st_dev, seen.st_ino) \
                or st.st_nlink != 1:
            return None, "it changed while it was collected"
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(_CHUNK, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            return None, f"it grew past {limit} bytes while it was read"
        return b"".join(chunks), ""
    except OSError as exc:
        return None, f"could not be read ({exc.strerror})"
    finally:
        os.close(fd)


def _kind(mode: int) -> str:
    for test, word in ((stat.S_ISLNK, "symbolic link"), (stat.S_ISFIFO, "FIFO"), (stat.S_ISSOCK, "socket"),
                       (stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device")):
        if test(mode):
            return word
    return "special file"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
