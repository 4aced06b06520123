"""Share links: store code + view state, restore them, refuse oversized or unknown ones."""
import sqlite3

import pytest


@pytest.fixture
def client(tmp_path, monkeypatch):
    monkeypatch.setenv("DAGSCOPE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("DAGSCOPE_SNIPPET_RATE_PER_MIN", "0")     # one test client shares many
    from fastapi.testclient import TestClient
    from app.main import create_app
    with TestClient(create_app()) as c:
        yield c


def test_data_folder_is_created_on_start(client, tmp_path):
    assert (tmp_path / "data" / "snippets.sqlite3").exists()


def test_only_the_server_user_can_open_the_store(client, tmp_path):
    """Runs have uids of their own: the data folder is 0700, the database and its WAL 0600."""
    assert client.post("/api/snippets", json={"code": "x = 1\n"}).status_code == 201
    data = tmp_path / "data"
    # SQLite folds the WAL back and deletes it when the last connection closes: a reader held open
    # keeps the -wal (and -shm) of the next share in place to be looked at
    keep = sqlite3.connect(data / "snippets.sqlite3")
    keep.execute("SELECT count(*) FROM snippets").fetchall()
    try:
        assert client.post("/api/snippets", json={"code": "x = 2\n"}).status_code == 201
        assert data.stat().st_mode & 0o777 == 0o700
        files = [p for p in data.iterdir() if p.name.startswith("snippets.sqlite3")]
        assert any(p.name.endswith("-wal") for p in files), files
        for path in files:
            assert path.stat().st_mode & 0o777 == 0o600, path
    finally:
        keep.close()


def test_an_existing_open_data_folder_is_made_private(tmp_path):
    from app.services.snippets import SnippetStore
    (tmp_path / "open").mkdir(mode=0o755)
    (tmp_path / "open").chmod(0o755)
    SnippetStore(tmp_path / "open")
    assert (tmp_path / "open").stat().st_mode & 0o777 == 0o700


def test_round_trip_restores_code_and_state(client):
    state = {"tab": "step", "node": "b2", "step": 3, "pass": 1}
    r = client.post("/api/snippets", json={"code": "x = 1\n", "state": state})
    assert r.status_code == 201
    body = r.json()
    assert body["url"] == f"/s/{body['id']}" and len(body["id"]) >= 8
    got = client.get(f"/api/snippets/{body['id']}").json()
    assert got["code"] == "x = 1\n" and got["state"] == state
    page = client.get(body["url"])
    assert page.status_code == 200 and "x = 1" in page.text and '"step": 3' in page.text


def test_ids_are_unique_and_unguessable(client):
    ids = {client.post("/api/snippets", json={"code": "a"}).json()["id"] for _ in range(20)}
    assert len(ids) == 20


def test_oversized_code_and_state_are_413(client):
    assert client.post("/api/snippets", json={"code": "x" * 100_001}).status_code == 413
    assert client.post("/api/snippets", json={"code": "", "state": {"k": "v" * 5000}}).status_code == 413


def test_unknown_and_malformed_ids_are_404(client):
    assert client.get("/api/snippets/nope1234").status_code == 404
    assert client.get("/api/snippets/../../etc").status_code == 404
    assert client.get("/s/doesnotexist").status_code == 404


def test_code_in_page_cannot_break_out_of_the_script_tag(client):
    evil = "</script><script>alert(1)</script>"
    sid = client.post("/api/snippets", json={"code": evil}).json()["id"]
    page = client.get(f"/s/{sid}").text
    assert "<script>alert(1)" not in page
