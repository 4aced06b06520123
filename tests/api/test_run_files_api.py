"""Files a run writes come back (issue 19): the record's `files`, GET /api/files/{id} as a safe
download for the client that ran it, and the store behind it (app/services/file_store.py)."""
import hashlib

import pytest

from app.routes.files import content_disposition
from app.services import file_store, run_files

CODE = r'''
import numpy as np, os
np.save("weights.npy", np.arange(6, dtype=np.float32))
os.makedirs("out", exist_ok=True)
with open("out/page.html", "w") as f:
    f.write("<script>alert(1)</script>")
os.symlink("/etc/passwd", "passwd")
print("saved")
'''


@pytest.fixture
def data_client(client, monkeypatch, tmp_path):
    monkeypatch.setenv("DAGSCOPE_DATA_DIR", str(tmp_path))
    return client


def test_a_runs_files_come_back_and_download_safely(data_client):
    rec = data_client.post("/api/run", json={"code": CODE}).json()
    assert rec["ok"] and rec["stdout"] == "saved\n", rec["error"]
    files = {f["name"]: f for f in rec["files"]}
    assert set(files) == {"weights.npy", "out/page.html"}
    assert "passwd (not a regular file (a symbolic link))" in rec["files_note"]
    page = files["out/page.html"]
    r = data_client.get(page["url"])
    assert r.status_code == 200 and r.content == b"<script>alert(1)</script>"
    assert hashlib.sha256(r.content).hexdigest() == page["sha256"] and page["size"] == len(r.content)
    assert r.headers["content-type"] == "application/octet-stream"
    assert r.headers["content-disposition"] == "attachment; filename=\"page.html\"; filename*=UTF-8''page.html"
    assert r.headers["x-content-type-options"] == "nosniff"
    assert "default-src 'none'" in r.headers["content-security-policy"]
    # another address, an unknown id, a malformed one: the same 404
    file_id = page["url"].rsplit("/", 1)[1]
    with pytest.raises(run_files.Gone):
        run_files.download("10.9.8.7", file_id)
    for url in ("/api/files/" + "A" * 24, "/api/files/x", "/api/files/" + "A" * 23 + "."):
        r = data_client.get(url)
        assert r.status_code == 404 and "run the program again" in r.json()["detail"], url
    assert data_client.get("/api/files/..%2f..%2fetc%2fpasswd").status_code == 404


def test_downloads_need_the_token_in_token_mode(data_client, monkeypatch):
    rec = data_client.post("/api/run", json={"code": "open('a.txt', 'w').write('hi')"}).json()
    url = rec["files"][0]["url"]
    monkeypatch.setenv("DAGSCOPE_ACCESS_TOKEN", "classroom-secret")
    assert data_client.get(url).status_code == 401
    r = data_client.get(url, headers={"Authorization": "Bearer classroom-secret"})
    assert r.status_code == 200 and r.content == b"hi"


@pytest.mark.parametrize("name, ascii_part", [
    ("model.pt", 'filename="model.pt"'),
    ("ckpt/deep/w.pt", 'filename="w.pt"'),
    ('a"; filename="evil.html', 'filename="a___filename__evil.html"'),
    ("\ufffdgnp.exe", 'filename="_gnp.exe"'),
    ("..", 'filename="file"'),
    (".bashrc", 'filename="bashrc"'),
    ("模型.onnx", 'filename="__.onnx"'),
])
def test_the_download_name_is_plain_ascii_with_utf8_beside_it(name, ascii_part):
    header = content_disposition(name)
    assert header.startswith("attachment; " + ascii_part + "; filename*=UTF-8''")
    assert "\r" not in header and "\n" not in header and header.count('"') == 2


def test_the_store_dedups_expires_and_evicts_the_oldest(database_url):
    from app.services.database import database
    now = [1000.0]
    store = file_store.DatabaseFileStore(database(), max_bytes=100, clock=lambda: now[0])
    a, twin = store.put("me", [("a", b"x" * 40), ("a-again", b"x" * 40)], ttl_s=60)   # the same bytes: kept once
    assert a.sha256 == twin.sha256 and a.id != twin.id and store.used_bytes() == 40 and store.blob_count() == 1
    assert store.get("me", a.id) == (a, b"x" * 40) and store.get("you", a.id) is None
    now[0] += 1
    [b] = store.put("me", [("b", b"y" * 50)], ttl_s=60)
    now[0] += 1
    [c] = store.put("me", [("c", b"z" * 30)], ttl_s=60)         # 120 > 100: the oldest two go
    assert store.get("me", a.id) is None and store.get("me", twin.id) is None
    assert store.get("me", b.id)[1] == b"y" * 50 and store.get("me", c.id)[1] == b"z" * 30
    assert store.used_bytes() == 80 and store.blob_count() == 2
    assert store.put("me", [("huge", b"h" * 101)], ttl_s=60) == [None]
    assert store.get("me", "'; DROP TABLE run_files; --") is None
    now[0] += 60
    assert store.get("me", b.id) is None and store.expire() == 2
    assert store.used_bytes() == 0 and store.blob_count() == 0


def test_the_record_names_what_the_server_could_not_keep(tmp_path, monkeypatch):
    monkeypatch.setenv("DAGSCOPE_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("DAGSCOPE_FILE_STORE_MB", "0.0001")             # ~100 bytes
    index = {"files": [{"name": "small", "size": 3}, {"name": "big\u202e", "size": 500}],
             "left_out": [{"name": "link", "why": "not a regular file (a symbolic link)"}], "more_left_out": 4}
    kept = run_files.keep("me", index, [b"abc", b"x" * 500])
    assert [f["name"] for f in kept["files"]] == ["small"]
    assert kept["files_note"] == ("6 file(s) of the working folder were not kept: link (not a regular file (a "
                                  "symbolic link)); and 4 more; big\ufffd (larger than the server's file store)")
    late = run_files.keep("me", {"files": [{"name": f"f{i}"} for i in range(5)]}, [b"x"] * 5, deadline=0)
    assert late == {"files": [], "files_note": "5 file(s) of the working folder were not kept: f0, f1, f2 "
                                               "and 2 more (the run's time was up before they could be kept)"}


SAVE = """import torch
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.Tanh())
torch.save(model.state_dict(), "model.pt")
print(model[0].bias)
"""


def test_a_checkpoint_saved_in_a_run_downloads_in_pytorchs_format(data_client):
    """The issue's path: torch.save in a sandboxed run, the file downloaded, opened by torch.load
    (real PyTorch's where it is installed: weights_only=True, as a student's own machine would)."""
    import io
    from engine.compat.torch import _serialization
    from tests.conftest import real_torch_installed
    rec = data_client.post("/api/run", json={"code": SAVE}).json()
    assert rec["ok"], rec["error"]
    body = data_client.get(rec["files"][0]["url"]).content
    ours = _serialization.load(io.BytesIO(body))
    assert list(ours) == ["0.weight", "0.bias"] and ours["0.weight"].shape == (2, 3)
    if real_torch_installed():
        import torch
        theirs = torch.load(io.BytesIO(body), weights_only=True)
        assert torch.equal(theirs["0.weight"], torch.from_numpy(ours["0.weight"].array))
        assert str(theirs["0.bias"])[:-1] in rec["stdout"]       # tensor([...]) as the run printed it
