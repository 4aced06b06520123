"""The runs' tensor values, kept in memory for the page to fetch when a node is clicked.

A sandboxed run sends its large tensors' values apart from its record (app/sandbox/values_channel.py
checks them); they are kept here under an unguessable run id, for the client that ran it only,
bounded by bytes (the least recently read run goes first) and by age. What a click asks for is
summarised here with the engine's own tensor_json, so the page shows the numbers a record
holding the tensor would have shown, bit for bit; the values themselves are served as .npy."""
from __future__ import annotations

import collections
import io
import re
import secrets
import threading
import time
from dataclasses import dataclass, field

import numpy as np

from app.config import get_settings
from app.sandbox.values_channel import RunValues

RUN_ID = re.compile(r"[A-Za-z0-9_-]{20,64}")
TENSOR_ID = re.compile(r"v[0-9]{1,6}")
GONE = ("this run's tensor values are no longer kept on the server (they are kept for a while, "
        "for the one who ran it): run the program again")


class Gone(LookupError):
    """No values under this run and tensor id for this client (expired, evicted, never there)."""


MAX_SUMMARIES_PER_RUN = 512    # summaries remembered per run (each a few kB): a repeated click costs nothing


@dataclass
class _Kept:
    client: str
    values: RunValues
    expires: float
    summaries: dict = field(default_factory=dict)


class TensorStore:
    def __init__(self, max_bytes: int, ttl_s: float, clock=time.monotonic):
        self.max_bytes, self.ttl_s, self._clock = max_bytes, ttl_s, clock
        self._runs: collections.OrderedDict[str, _Kept] = collections.OrderedDict()   # least recent first
        self._bytes = 0
        self._lock = threading.Lock()

    def keep(self, client: str, values: RunValues) -> str | None:
        """A new run id for `values`, or None when they alone pass the store's bound."""
        if values.nbytes > self.max_bytes:
            return None
        run_id = secrets.token_urlsafe(24)
        with self._lock:
            self._expire()
            while self._runs and self._bytes + values.nbytes > self.max_bytes:
                self._drop(next(iter(self._runs)))
            self._runs[run_id] = _Kept(client, values, self._clock() + self.ttl_s)
            self._bytes += values.nbytes
        return run_id

    def array(self, client: str, run_id: str, ref: str) -> np.ndarray:
        """The kept array (read-only), or Gone. Another client's run is as unknown as none."""
        return self._array(self._kept(client, run_id), ref)

    def summary(self, client: str, run_id: str, ref: str, summarise) -> dict:
        """`summarise(array)` of a kept array, remembered: a summary costs a pass over the values,
        and GETs are not rate limited."""
        kept = self._kept(client, run_id)
        found = kept.summaries.get(ref)
        if found is None:
            found = summarise(self._array(kept, ref))
            if len(kept.summaries) < MAX_SUMMARIES_PER_RUN:
                kept.summaries[ref] = found
        return found

    def _kept(self, client: str, run_id: str) -> _Kept:
        with self._lock:
            self._expire()
            kept = self._runs.get(run_id)
            if kept is None or kept.client != client:
                raise Gone(GONE)
            self._runs.move_to_end(run_id)
        return kept

    @staticmethod
    def _array(kept: _Kept, ref: str) -> np.ndarray:
        array = kept.values.array(ref)
        if array is None:
            raise Gone("this run kept no values under that id")
        return array

    @property
    def nbytes(self) -> int:
        return self._bytes

    def _expire(self) -> None:
        now = self._clock()
        for run_id in [r for r, kept in self._runs.items() if kept.expires <= now]:
            self._drop(run_id)

    def _drop(self, run_id: str) -> None:
        self._bytes -= self._runs.pop(run_id).values.nbytes


_store: TensorStore | None = None
_store_lock = threading.Lock()


def store() -> TensorStore:
    global _store
    with _store_lock:
        if _store is None:
            s = get_settings()
            _store = TensorStore(int(s.tensor_store_mb * (1 << 20)), s.tensor_store_ttl_s)
        return _store


def keeper(client: str):
    """What the sandbox calls with a run's checked values: keeps them for `client`."""
    return lambda values: store().keep(client, values)


def summary(client: str, run_id: str, ref: str) -> dict:
    """The Tensor of the record (docs/run-record.md) with its heat-map, from the kept values."""
    from engine.record.values import tensor_json   # lazy: the engine's numpy code only when asked
    if not (RUN_ID.fullmatch(run_id) and TENSOR_ID.fullmatch(ref)):
        raise Gone(GONE)
    return store().summary(client, run_id, ref, tensor_json)


def npy(client: str, run_id: str, ref: str) -> bytes:
    """The kept values as a .npy file (NumPy's format: a header naming dtype and shape, then the
    values in C order); np.load reads it, and so can the page."""
    out = io.BytesIO()
    np.save(out, _checked(client, run_id, ref), allow_pickle=False)
    return out.getvalue()


def _checked(client: str, run_id: str, ref: str) -> np.ndarray:
    if not (RUN_ID.fullmatch(run_id) and TENSOR_ID.fullmatch(ref)):
        raise Gone(GONE)
    return store().array(client, run_id, ref)
