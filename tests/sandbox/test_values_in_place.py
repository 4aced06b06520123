"""The child's values written in place when the recorder keeps them (app/sandbox/child.py
InPlaceValues): the same tensors, ids, order and bytes as the engine's ValueStore, straight into
the run's values memfd; and a sandboxed run keeps values past its file-size limit (RLIMIT_FSIZE
binds writes to a memfd, not a mapping of it)."""
import os

import numpy as np
import pytest

from app.sandbox.child import InPlaceValues, write_values
from app.sandbox.protocol import values_memfd
from engine.record.values import ValueStore


def _arrays() -> list:
    rng = np.random.default_rng(0)
    grid = rng.standard_normal((30, 41)).astype(np.float32)
    return [
        grid,                                     # odd size: the next tensor starts mid-page
        np.arange(10, dtype=np.float32),          # small: the record carries it, not kept
        grid.T,                                   # a view, not C-ordered
        grid[::2, 1::3],                          # a view with gaps
        rng.standard_normal(500).astype(">f4"),   # the other byte order, kept as it is
        rng.standard_normal(300).astype(np.float16),
        rng.random(200) > 0.5,                    # bool
        np.arange(700, dtype=np.int64).reshape(7, 100),
        np.zeros(100, dtype=np.complex64),        # a dtype not kept
        rng.standard_normal((40, 40)),            # float64; past the bound below
        rng.standard_normal(90).astype(np.float32),   # still fits after it
    ]


def _kept(store) -> list:
    return [store.add(a) for a in _arrays()]


def test_in_place_values_keep_what_the_engines_store_keeps_byte_for_byte():
    bound = 20_000
    fd = values_memfd(bound)
    try:
        reference, in_place = ValueStore(bound), InPlaceValues(fd, bound)
        refs = _kept(reference)
        assert _kept(in_place) == refs
        assert refs[1] is None and refs[8] is None and refs[9] is None and refs[10] is not None
        assert in_place.index == reference.index and in_place.size == reference.size
        assert in_place.chunks == []             # nothing kept in the run's own memory
        assert os.pread(fd, bound, 0)[:reference.size] == b"".join(reference.chunks)
    finally:
        os.close(fd)


def test_in_place_values_stop_at_the_tensor_count_and_at_the_memfds_size():
    fd = values_memfd(4096)
    try:
        store = InPlaceValues(fd, 1 << 20)       # the memfd is smaller than the bound: it bounds
        assert store.max_bytes == 4096
        assert store.add(np.ones(1000, dtype=np.float32)) == "v1"
        assert store.add(np.ones(100, dtype=np.float32)) is None      # 4,400 bytes > 4,096
        store.MAX_TENSORS = 2
        assert store.add(np.ones(65, dtype=np.int8)) == "v2"
        assert store.add(np.ones(65, dtype=np.int8)) is None
    finally:
        os.close(fd)


@pytest.fixture(scope="module")
def run_past_file_limit():
    from app.sandbox import ZYGOTE, runner
    from app.sandbox.limits import Limits
    kept = []
    # 3 x 0.5 MB of values with a 1 MB file-size limit: the third starts past it
    record = runner.run_code("import torch\nx = torch.full((256, 512), 0.25, requires_grad=True)\n"
                             "y = x * 2\n(y * 3).sum().backward()\n", {},
                             Limits(timeout_s=10, file_mb=1, max_values_bytes=4 << 20), zygote=ZYGOTE,
                             keep_values=lambda values: kept.append(values) or "kept")
    return record, kept


def test_a_sandboxed_run_keeps_values_past_its_file_size_limit(run_past_file_limit):
    record, kept = run_past_file_limit
    assert record["ok"] and record["run_id"] == "kept", record.get("error")
    assert kept[0].nbytes > 1 << 20
    arrays = [kept[0].array(ref) for ref in kept[0].index]
    assert all(a.shape == (256, 512) for a in arrays)
    assert any((a == 0.25).all() for a in arrays) and any((a == 0.5).all() for a in arrays)


def test_in_place_values_hold_room_as_the_engines_store_does():
    """The recorder holds room for a leaf's gradient while its walk runs (ValueStore.reserve):
    a tensor that would take it is refused, the gradient itself takes it, by either store."""
    fd = values_memfd(20_000)
    try:
        grid = np.ones((30, 41), np.float32)                 # 4,920 bytes
        for store in (ValueStore(12_000), InPlaceValues(fd, 12_000)):
            held = store.reserve(grid)
            assert held == grid.nbytes and store.add(grid) == "v1"
            assert store.add(grid * 2) is None               # 9,840 kept and held + 4,920 > 12,000
            assert store.add(grid * 3, held) == "v2" and store.reserved == 0
    finally:
        os.close(fd)


def test_in_place_values_cross_their_mapped_windows_byte_for_byte(monkeypatch):
    """Tensors are copied through a window of the memfd, moved on when one passes its end (a
    mapping per tensor cost ~55 us each): windows smaller than some tensors, offsets mid-page."""
    monkeypatch.setattr(InPlaceValues, "WINDOW", 8192)
    rng = np.random.default_rng(5)
    arrays = [rng.standard_normal(n).astype(np.float32) for n in (3000, 700, 65, 5000, 1500, 2100, 999)]
    fd = values_memfd(1 << 16)
    try:
        reference, in_place = ValueStore(1 << 16), InPlaceValues(fd, 1 << 16)
        assert [in_place.add(a) for a in arrays] == [reference.add(a) for a in arrays]
        null = os.open(os.devnull, os.O_WRONLY)
        write_values(null, in_place)                       # (closes its window)
        os.close(null)
        assert in_place._window is None
        assert os.pread(fd, reference.size, 0) == b"".join(reference.chunks)
    finally:
        os.close(fd)
