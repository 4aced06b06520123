"""Per-client token buckets in the shared database, so that a client's rate limits hold across
replicas: app/middleware.py's WriteRateLimit keeps its buckets here when the database is shared
(PostgreSQL), and in its own memory with the embedded one (one process). A request costs one
atomic upsert: the bucket is refilled for the time since it was last counted and a token is
taken only if one is there (a refused request changes nothing), so two replicas taking the same
client's last token at once cannot both have it. Times are the wall clock's (replicas share no
monotonic clock); rows unused for an hour are swept by the periodic job (app/services/expiry.py)."""
from __future__ import annotations

import time

UNUSED_S = 3600     # a bucket is full again long before (burst / rate: seconds to minutes)

_REFILLED = "rate_buckets.tokens + (%s - rate_buckets.updated) * %s"
_TAKE = f"""INSERT INTO rate_buckets (route, client, tokens, updated) VALUES (%s, %s, %s, %s)
ON CONFLICT (route, client) DO UPDATE SET
    tokens = CASE WHEN {_REFILLED} > %s THEN %s ELSE {_REFILLED} END - 1,
    updated = %s
    WHERE {_REFILLED} >= 1
RETURNING tokens"""


def take(db, route: str, client: str, per_min: float, burst: int, now: float | None = None) -> float:
    """Spend one of `client`'s tokens for `route`; returns 0, or the seconds until one is there."""
    rate, full = per_min / 60.0, float(max(1, burst))
    now = time.time() if now is None else now
    with db.transaction() as tx:
        taken = tx.execute(_TAKE, (route, client, full - 1, now, now, rate, full, full, now, rate, now,
                                   now, rate)).fetchone()
        if taken is not None:
            return 0.0
        tokens, updated = tx.execute("SELECT tokens, updated FROM rate_buckets WHERE route = %s AND client = %s",
                                     (route, client)).fetchone()
    available = min(full, tokens + (now - updated) * rate)
    return max(0.001, (1 - available) / rate)


def sweep(db, now: float | None = None) -> int:
    now = time.time() if now is None else now
    with db.transaction() as tx:
        return max(0, tx.execute("DELETE FROM rate_buckets WHERE updated < %s", (now - UNUSED_S,)).rowcount)
