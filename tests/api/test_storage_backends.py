"""The stores behind app/services/database.py, each test on both backends: SQLite in the data
folder and a real PostgreSQL (tests/postgres_server.py, one server for the session)."""
import json
import threading
import time

import pytest

from app.config import get_settings
from app.services import database, migrations, snippets


def test_the_settings_choose_the_backend(database_url):
    db = database.database()
    assert db.dialect == ("postgresql" if database_url else "sqlite") and db.shared == bool(database_url)
    db.check()


def test_the_schema_is_migrated_once_with_its_versions_recorded(database_url):
    db = database.database()
    newest = migrations.migrations(db.dialect)[-1][0]
    assert migrations.current_version(db) == newest
    assert migrations.migrate(db) == []                       # nothing left to do
    with db.transaction() as tx:
        rows = tx.execute("SELECT version, name FROM schema_migrations ORDER BY version").fetchall()
    assert [tuple(r) for r in rows] == [(v, name) for v, name, _ in migrations.migrations(db.dialect)]


def test_replicas_starting_together_migrate_once(database_url):
    """Four processes' worth of opens at the same moment: the schema lock lets one migrate."""
    settings = get_settings()
    applied, errors = [], []

    def open_one():
        try:
            db = database.open_database(settings.database_url, settings.data_dir)
            applied.append(migrations.migrate(db))
            db.close()
        except Exception as exc:          # noqa: BLE001 (collected for the assert)
            errors.append(exc)
    threads = [threading.Thread(target=open_one) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and applied == [[]] * 4     # the first open migrated; every later one found it done


def test_a_transaction_that_reads_then_writes_waits_for_another_writer(database_url):
    """`writes=True` for a read followed by a write: on SQLite a deferred transaction whose
    snapshot another connection wrote past fails at once ("database is locked", the cause of a
    red CI in the tensor store's expiry sweep); an IMMEDIATE one makes the other writer wait."""
    db = database.database()
    with db.transaction() as tx:
        tx.execute("DELETE FROM rate_buckets WHERE route = %s", ("t",))
    read, other_done, errors = threading.Event(), threading.Event(), []

    def write_meanwhile():
        read.wait(5)
        try:
            with db.transaction() as tx:
                tx.execute("INSERT INTO rate_buckets (route, client, tokens, updated) VALUES (%s, %s, 1, 0)",
                           ("t", "other"))
        except Exception as exc:          # noqa: BLE001 (collected for the assert)
            errors.append(exc)
        other_done.set()
    thread = threading.Thread(target=write_meanwhile)
    thread.start()
    with db.transaction(writes=True) as tx:
        tx.execute("SELECT COUNT(*) FROM rate_buckets WHERE route = %s", ("t",)).fetchone()
        read.set()
        other_done.wait(0.3)             # SQLite: the other writer waits for this one (not done yet)
        tx.execute("INSERT INTO rate_buckets (route, client, tokens, updated) VALUES (%s, %s, 1, 0)", ("t", "me"))
    thread.join(10)
    assert errors == [] and other_done.is_set()
    with db.transaction() as tx:
        assert tx.execute("SELECT COUNT(*) FROM rate_buckets WHERE route = %s", ("t",)).fetchone()[0] == 2


def test_a_new_file_is_put_in_wal_mode_while_another_opener_writes(tmp_path):
    """Replicas (or threads) opening a new SQLite file together: one writing in it while it is
    still in rollback mode made the other's switch to WAL fail at once ("database is locked", no
    busy timeout: SQLite refuses a reader's wait for a writer that may wait for it) — the fresh-clone
    CI's test_replicas_starting_together_migrate_once[sqlite] one run in a few hundred."""
    import sqlite3
    path = tmp_path / database.SQLITE_FILE
    writer = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("CREATE TABLE first_opener (x INTEGER)")
    done = threading.Timer(0.2, lambda: writer.execute("COMMIT"))
    done.start()
    try:
        db = database.SQLiteDatabase(tmp_path)             # waits for the writer, then switches
        with db.transaction() as tx:
            assert tx.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        done.join()
        writer.close()


def test_share_links_round_trip(database_url):
    store = snippets.store()
    state = {"tab": "step", "node": "b2", "step": 3, "text": "é 中文 \u2028"}
    sid = store.save("x = 1\n# ünïcode\n", state)
    assert store.load(sid) == {"id": sid, "code": "x = 1\n# ünïcode\n", "state": state}
    assert store.load("nope1234") is None
    assert store.used_bytes() == len("x = 1\n# ünïcode\n".encode()) + len(json.dumps(state, separators=(",", ":")))


def test_the_quota_drops_the_oldest_unopened_and_refuses_when_all_were_opened(database_url):
    store = snippets.store()
    first, second = store.save("a" * 300, {}), store.save("b" * 300, {})
    store.load(first)                                          # opened: kept
    third = store.save("c" * 300, {}, quota_bytes=700)        # 904 > 700: the unopened `second` goes
    assert store.load(second) is None and store.load(first) and store.load(third)
    with pytest.raises(snippets.SnippetStoreFull, match="DAGSCOPE_SNIPPET_STORE_MB"):
        store.save("d" * 300, {}, quota_bytes=700)             # both left were opened
    assert store.count() == 2


def test_concurrent_shares_never_pass_the_quota(database_url):
    """Eight writers at once against a quota of five snippets: the quota lock serialises them, so
    the table never holds more than the quota, whichever process (replica) writes."""
    store = snippets.store()
    errors = []

    def share(i):
        try:
            store.save(f"{i:0100d}", {}, quota_bytes=5 * 102)
        except Exception as exc:          # noqa: BLE001
            errors.append(exc)
    threads = [threading.Thread(target=share, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and store.count() == 5 and store.used_bytes() == 5 * 102


def test_the_app_shares_through_the_chosen_backend(database_url, monkeypatch):
    monkeypatch.setenv("DAGSCOPE_SNIPPET_RATE_PER_MIN", "0")
    from fastapi.testclient import TestClient
    from app.main import create_app
    with TestClient(create_app()) as client:
        made = client.post("/api/snippets", json={"code": "print(1)\n", "state": {"tab": "forward"}}).json()
        assert client.get(f"/api/snippets/{made['id']}").json()["state"] == {"tab": "forward"}
        assert client.get(made["url"]).status_code == 200
    # another connection to the same database (another replica's) finds it too
    other = database.open_database(get_settings().database_url, get_settings().data_dir)
    try:
        assert snippets.SnippetStore(other).load(made["id"])["code"] == "print(1)\n"
    finally:
        other.close()


def test_a_wrong_url_is_refused_at_start(tmp_path):
    with pytest.raises(ValueError, match="postgresql://"):
        database.open_database("mysql://x/y", tmp_path)


def test_a_dialects_own_file_replaces_the_shared_one():
    for dialect in ("sqlite", "postgresql"):
        found = migrations.migrations(dialect)
        assert [v for v, _, _ in found] == sorted({v for v, _, _ in found})
        assert found[0][1] == "snippets"
    assert migrations.statements("-- a comment; here\nCREATE TABLE a (x INT);\nCREATE INDEX i ON a (x);\n") == [
        "CREATE TABLE a (x INT)", "CREATE INDEX i ON a (x)"]


def _values(n, fill=0):
    from app.sandbox.values_channel import RunValues
    return RunValues({"v1": ("uint8", (n,), 0, n)}, bytes([fill]) * n)


@pytest.fixture
def two_replicas(database_url):
    """Two tensor stores on one database, as two replicas have (closed after the test)."""
    from app.services import tensors
    now = [1000.0]
    pair = [tensors.DatabaseTensorStore(database.database(), max_bytes=1000, ttl_s=60, clock=lambda: now[0])
            for _ in range(2)]
    yield pair, now
    for store in pair:
        store.close()


def test_tensor_values_in_the_database_are_bounded_by_bytes_and_age(two_replicas):
    """DatabaseTensorStore keeps TensorStore's promises (tests/api/test_tensor_values_api.py's
    test_the_store_is_bounded_by_bytes_and_by_age) on each replica, and what the database holds
    of a run goes with it."""
    from app.services import tensors
    (a, b), now = two_replicas
    first = a.keep("c", _values(400, 1))
    now[0] += 1
    second = a.keep("c", _values(400, 2))
    assert b.array("c", first, "v1").tolist() == [1] * 400      # asked of A, written, read on B
    assert b.array("c", second, "v1")[0] == 2
    now[0] += 1
    assert a.array("c", first, "v1")[0] == 1                    # a read: `first` is now A's most recent
    third = a.keep("c", _values(400, 3))                        # over 1000 bytes: the least recently read goes
    assert a.nbytes == 800
    b._sleep = lambda pause: pytest.fail("waited for an evicted run")
    with pytest.raises(tensors.Gone, match="run the program again"):
        b.array("c", second, "v1")                              # its claim and its written values went with it
    b._sleep = time.sleep
    with pytest.raises(tensors.Gone):                           # another client's run is as unknown as none
        b.array("10.0.0.9", first, "v1")
    with pytest.raises(tensors.Gone, match="no values under that id"):
        a.array("c", first, "v2")
    assert a.keep("c", _values(2000)) is None                   # larger than the whole store: not kept
    made = []
    summary = b.summary("c", first, "v1", lambda arr: made.append(1) or {"n": int(arr.size)})
    assert summary == b.summary("c", first, "v1", lambda arr: made.append(1)) == {"n": 400} and made == [1]
    now[0] = 1061                                               # `first` (kept at 1000) expired, `third` (1002) not
    with pytest.raises(tensors.Gone):
        b.array("c", first, "v1")                               # expired: never read, even before the sweep
    assert b.expire() == 1 and a.expire() == 0 and a.nbytes == 400
    assert b.array("c", third, "v1")[0] == 3
    now[0] += 10
    assert a.expire() == 1 and a.nbytes == 0


class _Gate:
    """Holds a store's writer: replica A has been asked for values and has not written them yet."""

    def __init__(self, store):
        self.open, self.written, self._write = threading.Event(), [], store._write
        store._write = self

    def __call__(self, run_id, refs):
        assert self.open.wait(30)
        self._write(run_id, refs)
        self.written.append(run_id)


def test_values_another_replica_holds_are_asked_for_and_waited_for(two_replicas):
    """Replica B reads a run A holds: it asks (PostgreSQL's NOTIFY; with SQLite A writes every
    run behind its answer) and waits until A has written the tensor."""
    (a, b), _ = two_replicas
    gate = _Gate(a)
    run_id = a.keep("c", _values(100, 5))
    assert a.array("c", run_id, "v1").tolist() == [5] * 100          # A's own, from memory
    polled, found = threading.Event(), {}
    b._sleep = lambda pause: polled.set() or time.sleep(pause)
    reader = threading.Thread(target=lambda: found.update(values=b.array("c", run_id, "v1")))
    reader.start()
    assert polled.wait(30)                                           # B found the claim and no values: it waits
    gate.open.set()
    reader.join(30)
    assert found["values"].tolist() == [5] * 100 and gate.written[:1] == [run_id]


def test_values_no_replica_writes_are_gone_after_the_wait(two_replicas):
    """The replica holding a run stopped without writing it: another answers "run again" after
    its wait (here 0.3 s), and a write after the run expired keeps nothing."""
    from app.services import tensors
    (a, b), now = two_replicas
    gate = _Gate(a)
    run_id = a.keep("c", _values(100, 5))
    b.wait_s = 0.3
    with pytest.raises(tensors.Gone, match="did not answer"):
        b.array("c", run_id, "v1")
    now[0] += 61                                                     # expired before it was written:
    assert b.expire() == 1
    gate.open.set()
    assert a.flush(30)                                               # the write finds no claim, keeps nothing
    with database.database().transaction() as tx:
        assert tx.execute("SELECT COUNT(*) FROM tensor_values").fetchone()[0] == 0


def test_a_damaged_row_is_refused(two_replicas):
    from app.services import tensors
    (a, b), _ = two_replicas
    run_id = a.keep("c", _values(100, 5))
    assert b.array("c", run_id, "v1")[0] == 5
    with database.database().transaction() as tx:
        tx.execute("UPDATE tensor_values SET shape = %s", ("[200]",))
    third = tensors.DatabaseTensorStore(database.database(), max_bytes=1000, ttl_s=60, clock=lambda: 1000.0)
    try:
        with pytest.raises(tensors.Gone, match="damaged"):
            third.array("c", run_id, "v1")
    finally:
        third.close()


def test_a_replica_that_stops_writes_what_it_holds(two_replicas):
    """flush (the app's shutdown, after the drain): every run A holds is written, so B reads it
    without asking A, which is gone."""
    (a, b), _ = two_replicas
    run_id = a.keep("c", _values(100, 7))
    assert a.flush(30)
    a.close()
    b.wait_s = 0.3
    assert b.array("c", run_id, "v1").tolist() == [7] * 100


def test_the_tensor_store_follows_the_database(database_url, monkeypatch):
    from app.services import tensors
    assert isinstance(tensors.store(), tensors.DatabaseTensorStore if database_url else tensors.TensorStore)
    monkeypatch.setenv("DAGSCOPE_TENSOR_STORE", "memory")
    assert isinstance(tensors.store(), tensors.TensorStore)
    monkeypatch.setenv("DAGSCOPE_TENSOR_STORE", "database")
    kept = tensors.store()
    run_id = kept.keep("c", _values(10, 7))
    assert isinstance(kept, tensors.DatabaseTensorStore) and kept.array("c", run_id, "v1").tolist() == [7] * 10


def test_the_periodic_sweep_expires_every_store(database_url):
    from app.services import expiry
    shared = {"rate_buckets": 0} if database_url else {}          # kept in memory with the embedded one
    assert expiry.sweep() == {"tensor_runs": 0, "run_files": 0, **shared}


def test_a_clients_rate_is_counted_once_for_all_replicas(database_url):
    """app/services/rate_buckets.py: the token bucket every replica takes from (one table)."""
    from app.services import rate_buckets
    db, now = database.database(), 1000.0
    assert [rate_buckets.take(db, "/api/run", "10.0.0.5", 60, 3, now) for _ in range(3)] == [0, 0, 0]
    assert rate_buckets.take(db, "/api/run", "10.0.0.5", 60, 3, now) == pytest.approx(1.0)   # empty: 1 s
    assert rate_buckets.take(db, "/api/run", "10.0.0.6", 60, 3, now) == 0           # another client's own
    assert rate_buckets.take(db, "/api/snippets", "10.0.0.5", 60, 3, now) == 0      # another route's own
    assert rate_buckets.take(db, "/api/run", "10.0.0.5", 60, 3, now + 1.5) == 0     # 1.5 refilled, 1 taken
    assert rate_buckets.take(db, "/api/run", "10.0.0.5", 60, 3, now + 1.5) == pytest.approx(0.5)
    assert rate_buckets.sweep(db, now + 2 + rate_buckets.UNUSED_S) == 3


def test_concurrent_takes_never_pass_the_burst(database_url):
    from app.services import rate_buckets
    db, answers = database.database(), []
    threads = [threading.Thread(target=lambda: answers.append(rate_buckets.take(db, "/api/run", "10.0.0.7", 1, 5, 1000.0)))
               for _ in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(answers)[:5] == [0] * 5 and all(wait > 0 for wait in sorted(answers)[5:])
