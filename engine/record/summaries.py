"""What a run logged for charts (SummaryWriter's scalars and histograms), kept small for the record.

Nothing goes to disk: the facade's SummaryWriter hands each value to the recorder's Summaries,
and the run record carries them as its `summaries` field (docs/run-record.md). Bounded so a loop
that logs every step of a long run cannot grow the record: at most MAX_SERIES scalar tags of
MAX_POINTS points and MAX_HISTOGRAM_TAGS histogram tags of MAX_SNAPSHOTS snapshots; when a tag
has more, every other point is dropped and from then on only every 2nd (4th, ...) one is kept,
so the chart still spans the whole run. Values that are not finite are kept as "nan", "inf",
"-inf" (the record is strict JSON)."""
from __future__ import annotations

import math

import numpy as np

MAX_SERIES = 32
MAX_POINTS = 500
MAX_HISTOGRAM_TAGS = 16
MAX_SNAPSHOTS = 20
BINS = 30
MAX_TAG_CHARS = 200


def json_number(value: float):
    if math.isfinite(value):
        return value
    return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")


class _Thinned:
    """A list that keeps every `stride`-th item offered, halving itself when full."""

    def __init__(self, limit: int):
        self.limit, self.items, self.offered, self.stride = limit, [], 0, 1

    def offer(self, item) -> None:
        if self.offered % self.stride == 0:
            self.items.append(item)
            if len(self.items) > self.limit:
                self.items = self.items[::2]
                self.stride *= 2
        self.offered += 1


class Summaries:
    def __init__(self, warn=None):
        self.scalars: dict[str, _Thinned] = {}
        self.histograms: dict[str, _Thinned] = {}
        self._warn = warn or (lambda message: None)
        self._refused: set[str] = set()

    def _series(self, table: dict, tag, limit_tags: int, limit_items: int, what: str):
        tag = str(tag)[:MAX_TAG_CHARS]
        if tag not in table:
            if len(table) >= limit_tags:
                if what not in self._refused:
                    self._refused.add(what)
                    self._warn(f"SummaryWriter: only the first {limit_tags} {what} tags are kept for the charts; "
                               f"'{tag}' and later ones were left out.")
                return None
            table[tag] = _Thinned(limit_items)
        return table[tag]

    def scalar(self, tag, value: float, step: int | None) -> None:
        series = self._series(self.scalars, tag, MAX_SERIES, MAX_POINTS, "scalar")
        if series is not None:
            series.offer([series.offered if step is None else int(step), json_number(float(value))])

    def histogram(self, tag, values: np.ndarray, step: int | None) -> None:
        series = self._series(self.histograms, tag, MAX_HISTOGRAM_TAGS, MAX_SNAPSHOTS, "histogram")
        if series is None:
            return
        finite = values[np.isfinite(values)].astype(np.float64)
        if finite.size:
            counts, edges = np.histogram(finite, bins=BINS)
            low, high = float(finite.min()), float(finite.max())
        else:
            counts, edges, low, high = np.zeros(0, np.int64), np.zeros(0), None, None
        series.offer({"step": series.offered if step is None else int(step), "min": low, "max": high,
                      "count": int(values.size), "edges": [float(e) for e in edges],
                      "counts": [int(c) for c in counts]})

    def to_record(self) -> dict | None:
        if not self.scalars and not self.histograms:
            return None
        return {"scalars": [{"tag": tag, "points": s.items, "logged": s.offered} for tag, s in self.scalars.items()],
                "histograms": [{"tag": tag, "snapshots": s.items, "logged": s.offered}
                               for tag, s in self.histograms.items()]}
