"""GET /api/runs/{run_id}/tensors/{id}: a sandboxed run's large tensors come as stats and preview in
the record, their values and heat-map from the server's store when the page asks."""
import io
import json

import numpy as np
import pytest

from app.services import tensors
from engine.record.values import tensor_json

CODE = """import torch
torch.manual_seed(0)
w = torch.randn(30, 20, requires_grad=True)
x = torch.randn(8, 30)
loss = (x @ w).tanh().sum()
loss.backward()
"""


def _node(rec, op):
    return next(n for n in rec["graphs"][0]["forward"]["nodes"] if n["op"] == op)


def test_a_large_tensor_is_summarised_in_the_record_and_fetched_whole(client):
    rec = client.post("/api/run", json={"code": CODE}).json()
    assert rec["ok"] and isinstance(rec["run_id"], str) and len(rec["run_id"]) >= 32
    w = _node(rec, "input")
    assert set(w["value"]) == {"shape", "dtype", "data", "stats", "preview", "values"}
    base = f"/api/runs/{rec['run_id']}/tensors/{w['value']['values']}"
    r = client.get(base)
    assert r.status_code == 200 and r.headers["content-type"] == "application/octet-stream"
    values = np.load(io.BytesIO(r.content), allow_pickle=False)
    assert values.shape == (30, 20) and values.dtype == np.float32
    summary = client.get(base + "/summary").json()
    # the numbers a record holding the tensor shows: the same function on the same bytes
    assert summary == json.loads(json.dumps(tensor_json(values)))
    assert {k: summary[k] for k in ("stats", "preview")} == {k: w["value"][k] for k in ("stats", "preview")}
    assert np.array(summary["heatmap"]).shape == (24, 20)
    small = _node(rec, "sum")["value"]
    assert "values" not in small and small["data"] is not None       # small tensors stay whole


def test_unknown_and_foreign_values_are_404_with_a_reason(client):
    rec = client.post("/api/run", json={"code": CODE}).json()
    ref = _node(rec, "input")["value"]["values"]
    for path in (f"/api/runs/{rec['run_id']}/tensors/v99999", f"/api/runs/{'A' * 32}/tensors/{ref}",
                 f"/api/runs/{rec['run_id']}/tensors/..%2f/summary", f"/api/runs/x/tensors/{ref}"):
        r = client.get(path)
        assert r.status_code == 404 and r.json()["detail"], path
    # another client (another address) cannot read it
    store = tensors.store()
    assert store.array("testclient", rec["run_id"], ref).shape == (30, 20)
    with pytest.raises(tensors.Gone):
        store.array("10.1.2.3", rec["run_id"], ref)


def test_the_store_is_bounded_by_bytes_and_by_age():
    from app.sandbox.values_channel import RunValues
    now = [0.0]
    store = tensors.TensorStore(max_bytes=1000, ttl_s=60, clock=lambda: now[0])

    def values(n):
        return RunValues({"v1": ("uint8", (n,), 0, n)}, bytes(n))
    a = store.keep("c", values(400))
    b = store.keep("c", values(400))
    store.array("c", a, "v1")                     # a read: `a` is now the most recent
    c = store.keep("c", values(400))              # over 1000 bytes: the least recently read goes
    assert store.nbytes == 800
    store.array("c", a, "v1")
    store.array("c", c, "v1")
    with pytest.raises(tensors.Gone, match="run the program again"):
        store.array("c", b, "v1")
    assert store.keep("c", values(2000)) is None  # larger than the whole store: not kept
    made = []
    first = store.summary("c", a, "v1", lambda arr: made.append(1) or {"n": int(arr.size)})
    assert first == store.summary("c", a, "v1", lambda arr: made.append(1)) == {"n": 400} and made == [1]
    now[0] = 61
    with pytest.raises(tensors.Gone):
        store.array("c", a, "v1")                 # expired
    assert store.nbytes == 0
