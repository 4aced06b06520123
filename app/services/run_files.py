"""The files a run wrote in its working folder, kept for the one who ran it to download.

The supervisor collected them (app/sandbox/run_files.py: regular files only, bounded, names made
safe); here they go into the file store (app/services/file_store.py) for the client address that
ran the program, and the record gets `files: [{name, size, sha256, url}]` and, when some were left
out, `files_note` saying which and why (docs/run-record.md, "Files"). GET url answers the bytes
for that client only (another address gets the same 404 as an unknown id), until they expire.
"""
from __future__ import annotations

import re

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
    return lambda index, blobs: keep(client, index, blobs)


def keep(client: str, index: dict, blobs: list[bytes]) -> dict:
    ttl = get_settings().file_store_ttl_s
    kept, left_out = [], []
    for entry, data in zip(index.get("files", []), blobs):
        name = safe_name(str(entry.get("name", "")) if isinstance(entry, dict) else "") or "file"
        stored = store().put(client, name, data, ttl)
        if stored is None:
            left_out.append(f"{name} (larger than the server's file store)")
            continue
        kept.append({"name": stored.name, "size": stored.size, "sha256": stored.sha256,
                     "url": URL_PREFIX + stored.id})
    for entry in index.get("left_out", []):
        if isinstance(entry, dict):
            left_out.append(f"{safe_name(str(entry.get('name', '')))} ({safe_name(str(entry.get('why', '')))[:200]})")
    more = index.get("more_left_out", 0)
    note = None
    if left_out or more:
        count = len(left_out) + (more if isinstance(more, int) and more > 0 else 0)
        note = f"{count} file(s) of the working folder were not kept: " + "; ".join(left_out)
        if count > len(left_out):
            note += f"; and {count - len(left_out)} more"
    return {"files": kept, "files_note": note}


def download(client: str, file_id: str) -> tuple[file_store.StoredFile, bytes]:
    if not FILE_ID.fullmatch(file_id):
        raise Gone(GONE)
    found = store().get(client, file_id)
    if found is None:
        raise Gone(GONE)
    return found
