"""The page's words for the record's English texts: beside each list of `warnings` that holds a
Message (engine.hooks.Message), `warning_messages` — the same length, each entry null or the
warning's {key, params} — and beside a graph's `title` that is one, `title_message`. The English
stays where it was, so every reader of the record reads what it read before; the page words a
text from its key in its own language (static/js/i18n.js tMessage)."""
from __future__ import annotations

from engine.hooks import Message


def _messages(texts: list) -> list | None:
    found = [t.json() if isinstance(t, Message) else None for t in texts]
    return found if any(found) else None


def attach(record: dict) -> dict:
    """Add the message fields to `record` (in place) and return it."""
    for holder in [record, *record.get("graphs", [])]:
        messages = _messages(holder.get("warnings") or [])
        if messages:
            holder["warning_messages"] = messages
        if holder is not record and isinstance(holder.get("title"), Message):
            holder["title_message"] = holder["title"].json()
    return record
