"""app/sandbox/child.py's encode_record: the record's JSON within max_record_bytes, graphs left out
from the end with a note, each graph's JSON made once (the record as json.dumps writes it, read
back the same, with `graphs` as its last key)."""
import json

import numpy as np
import pytest

from app.sandbox.child import encode_record


def _record(n: int) -> dict:
    return {"ok": True, "stdout": 'a "graphs": [] inside a string, é', "stderr": "", "warnings": ["first"],
            "graphs": [{"id": f"g{i}", "title": "ü" * 50, "steps": [{"x": 1.5}] * (40 * i)} for i in range(1, n + 1)],
            "summaries": {"scalars": []}}


def test_a_record_within_the_limit_is_the_whole_record():
    record = _record(3)
    payload = encode_record(json.loads(json.dumps(record)), 10**6)
    assert json.loads(payload) == record


def test_graphs_are_left_out_from_the_end_until_the_record_fits():
    whole = len(json.dumps(_record(4)))
    for limit in range(200, whole + 50, 97):
        record = _record(4)
        payload = encode_record(record, limit)
        got = json.loads(payload)
        kept = len(got["graphs"])
        assert got["graphs"] == _record(4)["graphs"][:kept] == record["graphs"]
        if kept < 4:
            assert got["warnings"] == ["first", f"{4 - kept} graph(s) left out: the run record would have "
                                                f"been larger than {limit} bytes"]
            # as many as fit: one more would not have
            bigger = {**got, "graphs": _record(4)["graphs"][:kept + 1]}
            assert len(json.dumps(bigger)) > limit
        else:
            assert got["warnings"] == ["first"]
        assert len(payload) <= limit or kept == 0
        if kept < 4:         # the note's wording for the page, beside the record's own warning
            assert got["warning_messages"] == [None, {"key": "warning.graphs_left_out",
                                                      "params": {"n": 4 - kept, "bytes": limit}}]
        assert {k: v for k, v in got.items() if k not in ("graphs", "warnings", "warning_messages")} == \
            {k: v for k, v in _record(4).items() if k not in ("graphs", "warnings")}


def test_a_record_without_graphs_or_warnings():
    assert json.loads(encode_record({"ok": True, "graphs": []}, 10)) == {"ok": True, "graphs": []}
    got = json.loads(encode_record({"ok": True, "graphs": [{"id": "g1", "t": "x" * 100}]}, 60))
    assert got["graphs"] == [] and "1 graph(s) left out" in got["warnings"][0]


def test_graphs_past_the_first_that_overflows_are_not_written(monkeypatch):
    import app.sandbox.child as child
    written = []
    real_dumps = json.dumps

    def dumps(obj, **kw):
        if isinstance(obj, dict) and "steps" in obj:
            written.append(obj["id"])
        return real_dumps(obj, **kw)
    monkeypatch.setattr(child, "orjson", None)
    monkeypatch.setattr(child.json, "dumps", dumps)
    record = _record(4)
    size_two = len(real_dumps({**record, "graphs": record["graphs"][:2]}))
    got = json.loads(encode_record(record, size_two + 200))       # two graphs and the note fit
    assert [g["id"] for g in got["graphs"]] == ["g1", "g2"] and "2 graph(s) left out" in got["warnings"][-1]
    assert written == ["g1", "g2", "g3"]         # g3 overflowed: g4 could not be kept, and was not written


ODD = {"ok": True, "numpy": [np.float64(0.1), np.float32(2.5), np.int64(7), np.bool_(True)], "tuple": (1, 2.5e-300),
       "keys": {1: "a", None: "b", 2.5: "c"}, "text": "é \u2028 \"q\" \x00 中", "big": [2**63 - 1, -2**63],
       "floats": [1e-05, 1e22, 5e-324, -0.0, 0.1 + 0.2], "graphs": [{"id": "g1", "x": [{"y": [None, True]}]}]}


@pytest.mark.parametrize("with_orjson", [True, False])
def test_the_json_reads_back_as_json_dumps_writes_it(monkeypatch, with_orjson):
    """orjson (when installed) or json: the same values once parsed — numpy's float64 a number, other
    values json does not know as default=str's string, dict keys as json writes them; an integer
    past 64 bits or a lone surrogate is written by json."""
    import app.sandbox.child as child
    if not with_orjson:
        monkeypatch.setattr(child, "orjson", None)
    elif child.orjson is None:
        pytest.skip("orjson is not installed")
    want = json.loads(json.dumps(ODD, allow_nan=False, default=str))
    assert json.loads(encode_record(dict(ODD), 10**6)) == want
    for odd in ({"n": 2**70, "graphs": []}, {"s": "\ud800", "graphs": []}):
        assert json.loads(encode_record(dict(odd), 10**6)) == json.loads(json.dumps(odd))
    nan = {"ok": True, "graphs": [{"id": "g1", "x": float("nan")}]}
    if with_orjson:
        assert json.loads(encode_record(nan, 10**6))["graphs"] == [{"id": "g1", "x": None}]   # still strict JSON
    else:
        with pytest.raises(ValueError):
            encode_record(nan, 10**6)
