"""The files a run wrote in its working folder, kept for the one who ran it to download.

The supervisor collected them (app/sandbox/run_files.py: regular files only, bounded, names made
safe); here they go into the file store (app/services/file_store.py) for the client address that
ran the program, and the record gets `files: [{name, size, sha256, url}]` and, when some were left
out, `files_note` saying which and why (docs/run-record.md, "Files"). GET url answers the bytes
for that client only (another address gets the same 404 as an unknown id), until they expire.
"""
from __future__ import annotations

import re
import time

from app.config import get_settings
from app.sandbox.run_files import safe_name
from app.services import file_store

FILE_ID = re.compile(file_store.ID_PATTERN)
URL_PREFIX = "/api/files/"
GONE = ("this file is no longer kept on the server (a run's files are kept for a while, for the "
        "one who ran it): run the program again")


class Gone(LookupError):
    """No file under this id for this client."""


def store() -> file_store.DatabaseFileStore:
    return file_store.store(int(get_settings().file_store_mb * (1 << 20)))


def keeper(client: str):
    """What the sandbox calls with the collected files' index and bytes: keeps them for `client`
    and answers the record's `files` and `files_note`."""
    return lambda index, blobs, deadline=None: keep(client, index, blobs, deadline)


# What the store is assumed to take at worst per byte, to judge whether a file can still be kept by
# the deadline (a 15 MB blob took 0.5-0.9 s into SQLite on a loaded 2-core machine).
STORE_SECONDS_PER_BYTE = 1 / 15e6


def keep(client: str, index: dict, blobs: list[bytes], deadline: float | None = None) -> dict:
    """Keep the files for `client`, those that can be by `deadline` (time.monotonic())."""
    parts = [f"{safe_name(str(e.get('name', '')))} ({safe_name(str(e.get('why', '')))[:200]})"
             for e in index.get("left_out", []) if isinstance(e, dict)]
    more = index.get("more_left_out", 0)
    more = more if isinstance(more, int) and more > 0 else 0
    count = len(parts) + more
    if more:
        parts.append(f"and {more} more")
    batch, late = [], []
    budget = float("inf") if deadline is None else deadline - time.monotonic()
    for entry, data in zip(index.get("files", []), blobs):
        name = safe_name(str(entry.get("name", "")) if isinstance(entry, dict) else "") or "file"
        budget -= len(data) * STORE_SECONDS_PER_BYTE
        (batch if budget >= 0 else late).append((name, data))
    kept = []
    for (name, _), found in zip(batch, store().put(client, batch, get_settings().file_store_ttl_s) if batch else []):
        if found is None:
            parts.append(f"{name} (larger than the server's file store)")
            count += 1
        else:
            kept.append({"name": found.name, "size": found.size, "sha256": found.sha256, "url": URL_PREFIX + found.id})
    if late:
        shown = ", ".join(name for name, _ in late[:3]) + (f" and {len(late) - 3} more" if len(late) > 3 else "")
        parts.append(f"{shown} (the run's time was up before they could be kept)")
        count += len(late)
    note = f"{count} file(s) of the working folder were not kept: " + "; ".join(parts) if count else None
    return {"files": kept, "files_note": note}


def download(client: str, file_id: str) -> tuple[file_store.StoredFile, bytes]:
    if not FILE_ID.fullmatch(file_id):
        raise Gone(GONE)
    found = store().get(client, file_id)
    if found is None:
        raise Gone(GONE)
    return found
