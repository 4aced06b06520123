"""The tensor values a run sends after its record are hostile input: app/sandbox/values_channel.py
checks every entry and the byte count before the server keeps anything (outcome.judge)."""
import json

import numpy as np
import pytest

from app.sandbox import values_channel
from app.sandbox.limits import Limits
from app.sandbox.outcome import judge
from app.sandbox.protocol import frame

RECORD = frame(json.dumps({"stdout": "", "stderr": "", "output_order": [], "graphs": [], "warnings": [],
                           "error": None}).encode())


def channel(entries, blob: bytes) -> bytes:
    return frame(json.dumps(entries).encode()) + frame(blob)


A = np.arange(12, dtype=np.float32).reshape(3, 4)
B = np.array([True, False] * 40)
GOOD = channel([{"id": "v1", "dtype": "float32", "shape": [3, 4], "nbytes": 48},
                {"id": "v2", "dtype": "bool", "shape": [80], "nbytes": 80}], A.tobytes() + B.tobytes())


def test_a_good_channel_gives_back_the_arrays():
    values = values_channel.parse(GOOD, 1000)
    np.testing.assert_array_equal(values.array("v1"), A)
    np.testing.assert_array_equal(values.array("v2"), B)
    assert values.array("v3") is None and values.nbytes == 128
    assert not values.array("v1").flags.writeable


@pytest.mark.parametrize("data, why", [
    (channel([{"id": "v1", "dtype": "object", "shape": [1], "nbytes": 8}], bytes(8)), "dtype"),
    (channel([{"id": "v1", "dtype": ">f4", "shape": [2], "nbytes": 8}], bytes(8)), "dtype"),
    (channel([{"id": "v1", "dtype": "float32", "shape": [3], "nbytes": 8}], bytes(8)), "nbytes"),
    (channel([{"id": "v1", "dtype": "float32", "shape": [-2, -1], "nbytes": 8}], bytes(8)), "shape"),
    (channel([{"id": "v1", "dtype": "float32", "shape": [2.0], "nbytes": 8}], bytes(8)), "shape"),
    (channel([{"id": "v1", "dtype": "float32", "shape": [1] * 65, "nbytes": 4}], bytes(4)), "shape"),
    (channel([{"id": "../x", "dtype": "float32", "shape": [2], "nbytes": 8}], bytes(8)), "id"),
    (channel([{"id": "v1", "dtype": "uint8", "shape": [1], "nbytes": 1}] * 2, bytes(2)), "twice"),
    (channel([{"id": "v1", "dtype": "uint8", "shape": [4], "nbytes": 4}], bytes(5)), "counts"),
    (channel([{"id": "v1", "dtype": "uint8", "shape": [4], "nbytes": 4, "x": 1}], bytes(4)), "entry"),
    (channel({"v1": 1}, b""), "list"),
    (channel([{"id": f"v{i}", "dtype": "bool", "shape": [0], "nbytes": 0} for i in range(20_001)], b""), "list"),
    (channel([], bytes(2000)), "more than"),
    (GOOD + b"x", "more bytes"),
    (GOOD[:-3], "incomplete"),
    (frame(b"[{") + frame(b""), "JSON"),
])
def test_a_bad_channel_is_refused_with_a_reason(data, why):
    with pytest.raises(values_channel.Malformed, match=why):
        values_channel.parse(data, 1000)


def test_the_record_keeps_its_values_only_when_they_are_checked_and_allowed():
    report = {"exit_code": 0, "cpu_s": 0.1, "maxrss_kb": 1000}
    kept = []
    keep = lambda values: kept.append(values) or "RUNID"       # noqa: E731
    rec = judge(report, RECORD + GOOD, False, Limits(max_values_bytes=1000), 5, keep_values=keep)
    assert rec["ok"] and rec["run_id"] == "RUNID" and kept[0].index["v1"][:2] == ("float32", (3, 4))
    bad = RECORD + channel([{"id": "v1", "dtype": "object", "shape": [1], "nbytes": 8}], bytes(8))
    # bytes after the record that are not a well-formed channel were written by the program (the
    # child's writer sends exactly two good frames): nothing of the run is believed
    rec = judge(report, bad, False, Limits(max_values_bytes=1000), 5, keep_values=keep)
    assert rec["error"]["kind"] == "internal_error" and "not the run's values" in rec["error"]["message"]
    assert rec["stdout"] == "" and rec["run_id"] is None and len(kept) == 1
    rec = judge(report, RECORD + RECORD, False, Limits(max_values_bytes=1000), 5, keep_values=keep)
    assert rec["error"]["kind"] == "internal_error" and "more bytes followed it" in rec["error"]["message"]
    assert len(kept) == 1
    # the pipe's bound leaves room for values, not for a larger record
    rec = judge(report, RECORD + GOOD, False, Limits(max_values_bytes=1000, max_record_bytes=50), 5, keep_values=keep)
    assert rec["error"]["kind"] == "output_limit" and rec["run_id"] is None and len(kept) == 1
    # a server that takes no values (max_values_bytes 0) believes no bytes after the record
    rec = judge(report, RECORD + GOOD, False, Limits(), 5, keep_values=keep)
    assert rec["error"]["kind"] == "internal_error" and "more bytes" in rec["error"]["message"]
