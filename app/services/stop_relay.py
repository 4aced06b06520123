"""Stop across replicas: the page's Stop may reach a replica other than the one running the run.

With a shared database (PostgreSQL) each run with a stop key is registered in `run_stop_keys` while
it is queued or running (as a SHA-256 of the client's address and the key: the table holds no key
that would stop anything), and each replica LISTENs on the `dagscope_stop` channel. A Stop that finds
no such run locally looks the digest up: if some replica has it, it NOTIFYs the digest and that
replica stops its run as if the Stop had reached it; if none has, the answer is the same 404 as
before. With the embedded database there is one process and nothing to relay."""
from __future__ import annotations

import hashlib
import threading
import time
from typing import Callable

from app.services.database import listen

CHANNEL = "dagscope_stop"
STALE_S = 3600          # a key left by a replica that died mid-run is swept after this long


def digest(client: str, key: str) -> str:
    return hashlib.sha256(f"{client}\0{key}".encode()).hexdigest()


class StopRelay:
    def __init__(self, db, stop_here: Callable[[str], bool]):
        self.db, self.stop_here = db, stop_here
        self._closing = threading.Event()
        self._thread: threading.Thread | None = None

    def register(self, run_digest: str) -> None:
        with self.db.transaction() as tx:
            tx.execute("INSERT INTO run_stop_keys (digest, created) VALUES (%s, %s) ON CONFLICT (digest) DO NOTHING",
                       (run_digest, time.time()))

    def unregister(self, run_digest: str) -> None:
        with self.db.transaction() as tx:
            tx.execute("DELETE FROM run_stop_keys WHERE digest = %s", (run_digest,))

    def forward(self, run_digest: str) -> bool:
        """Tell the replica running it; False when no replica has a run under this digest."""
        with self.db.transaction() as tx:
            if tx.execute("SELECT 1 FROM run_stop_keys WHERE digest = %s", (run_digest,)).fetchone() is None:
                return False
            tx.execute("SELECT pg_notify(%s, %s)", (CHANNEL, run_digest))      # sent at commit
        return True

    def sweep(self) -> int:
        with self.db.transaction() as tx:
            return max(0, tx.execute("DELETE FROM run_stop_keys WHERE created < %s",
                                     (time.time() - STALE_S,)).rowcount)

    def start(self) -> None:
        self._thread = threading.Thread(target=self._listen, name="dagscope-stop-relay", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._closing.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _listen(self) -> None:
        listen(self.db.url, CHANNEL, self.stop_here, self._closing, "the stop relay")
