"""A client tying up a replica's threads with reads of another replica's tensor values.

A read of a run another replica holds waits for it to write the tensor (DatabaseTensorStore._read,
up to WAIT_S), holding one of the server's threads — the pool every client's tensor, file and
drawing request shares. A tensor the run never kept is never written, so each such read waited the
whole WAIT_S: one client asking for v1..v64 at once held them all. A client's reads wait two at a
time; a third is answered at once (429, tensors.Busy), and its slots are its own."""
import threading

import pytest

from app.sandbox.values_channel import RunValues
from app.services import database, tensors


@pytest.fixture
def replicas(database_url):
    """Two tensor stores on one database (SQLite: every run is written behind its answer, so a
    read on B of a ref A's run never kept waits the whole wait, as with PostgreSQL's asks)."""
    pair = [tensors.DatabaseTensorStore(database.database(), max_bytes=1000, ttl_s=60, clock=lambda: 1000.0)
            for _ in range(2)]
    yield pair
    for store in pair:
        store.close()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_clients_reads_wait_two_at_a_time(replicas):
    a, b = replicas
    run_id = a.keep("c", RunValues({"v1": ("uint8", (100,), 0, 100)}, bytes([5]) * 100))
    other = a.keep("d", RunValues({"v1": ("uint8", (100,), 0, 100)}, bytes([6]) * 100))
    assert a.flush(30)
    waiting, release = threading.Semaphore(0), threading.Event()
    b.wait_s = 60                                   # the two waiting reads end when released, not by the clock

    def sleep(pause):
        waiting.release()
        if release.wait(30):
            raise tensors.Gone(tensors.NOT_WRITTEN)   # as the wait's end would

    b._sleep = sleep
    answers = []

    def read(ref):
        try:
            b.array("c", run_id, ref)
        except tensors.Gone as gone:
            answers.append(type(gone))

    readers = [threading.Thread(target=read, args=(f"v{n}",)) for n in (7, 8)]   # refs the run never kept
    for reader in readers:
        reader.start()
    assert waiting.acquire(timeout=30) and waiting.acquire(timeout=30)
    with pytest.raises(tensors.Busy, match="try again") as busy:        # a third: at once, not after the wait
        b.array("c", run_id, "v9")
    assert busy.value.status == 429 and busy.value.key == "tensors_busy"
    assert b.array("c", run_id, "v1").tolist() == [5] * 100             # a written tensor waits for nothing
    assert b.array("d", other, "v1")[0] == 6
    release.set()
    for reader in readers:
        reader.join(30)
    assert answers == [tensors.Gone, tensors.Gone]
    b._sleep = lambda pause: None
    b.wait_s = 0                                     # the slots were freed: a read waits (and ends) again
    with pytest.raises(tensors.Gone, match="did not answer"):
        b.array("c", run_id, "v7")


def test_busy_is_a_429_with_its_wording(client, monkeypatch):
    """The route answers tensors.Busy as 429 with Retry-After and the page's wording."""
    def busy(*args):
        raise tensors.Busy(tensors.BUSY)
    monkeypatch.setattr(tensors, "npy_parts", busy)
    monkeypatch.setattr(tensors, "summary", busy)
    for path in ("/api/runs/" + "a" * 32 + "/tensors/v1", "/api/runs/" + "a" * 32 + "/tensors/v1/summary"):
        answer = client.get(path)
        assert answer.status_code == 429 and answer.headers["retry-after"] == "1"
        assert answer.json()["detail_message"]["key"] == "api.tensors_busy"


def test_ids_in_the_path_and_another_clients_run(client):
    """Run and tensor ids are looked up, never used as a path or a header: a huge, traversing or
    header-breaking id, or another client's run id, is the same 404 as an unknown one."""
    store = tensors.store()
    values = RunValues({"v1": ("uint8", (100,), 0, 100)}, bytes([3]) * 100)
    mine, theirs = store.keep("testclient", values), store.keep("10.0.0.9", values)
    assert client.get(f"/api/runs/{mine}/tensors/v1").headers["content-disposition"] == 'attachment; filename="v1.npy"'
    for path in (f"/api/runs/{theirs}/tensors/v1", f"/api/runs/{theirs}/tensors/v1/summary",
                 f"/api/runs/{mine}/tensors/v1%0d%0aSet-Cookie:%20x=1", f"/api/runs/{mine}/tensors/v2",
                 f"/api/runs/{mine}/tensors/v1234567", f"/api/runs/{mine}/tensors/%2e%2e%2f%2e%2e%2fetc%2fpasswd",
                 f"/api/runs/{'A' * 8000}/tensors/v1", f"/api/runs/{mine}%00/tensors/v1", f"/api/runs/{mine}/tensors/v\u0661"):
        answer = client.get(path)
        assert answer.status_code == 404 and "set-cookie" not in answer.headers, (path[:80], answer.status_code)
        assert answer.json()["detail"]          # a route's reason, or no route at all (a "/" in the id)


def test_tensor_requests_take_turns():
    """A GET of a tensor costs memory in proportion to it (a 128 MB tensor's summary ~550 MB), and
    GETs are not rate limited: a client's are served two at a time and everyone's four at a time;
    the rest wait on the event loop (no thread held), then get 429."""
    import asyncio
    from app.routes.tensors import Turns

    async def scenario():
        turns, held, release = Turns(per_client=2, at_once=3, wait_s=0.05), [], asyncio.Event()

        async def hold(client):
            async with turns.turn(client):
                held.append(client)
                await release.wait()

        holders = [asyncio.create_task(hold(c)) for c in ("a", "a", "b")]
        while len(held) < 3:
            await asyncio.sleep(0)
        for client in ("a", "c"):                     # a's third, and anyone's fourth: not served
            with pytest.raises(tensors.Busy):
                async with turns.turn(client):
                    pass
        turns.wait_s = 30
        waiter = asyncio.create_task(hold("c"))        # served once a turn is free
        await asyncio.sleep(0)
        release.set()
        await asyncio.wait_for(asyncio.gather(*holders, waiter), 30)
        assert held == ["a", "a", "b", "c"] and not turns._serving

    asyncio.run(scenario())


def test_the_values_are_streamed_from_the_kept_bytes(client):
    """The .npy is the kept bytes sent in chunks (not built whole for each request), byte for byte
    what np.save writes, with its length."""
    import io
    import numpy as np
    array = (np.arange(3 << 18) % 251).astype(np.float32).reshape(3, -1)         # 3 MB: three chunks
    run_id = tensors.store().keep("testclient", RunValues({"v1": ("float32", array.shape, 0, array.nbytes)},
                                                          array.tobytes()))
    header, values = tensors.npy_parts("testclient", run_id, "v1")
    kept = tensors.store().array("testclient", run_id, "v1")
    assert values.readonly and np.shares_memory(np.frombuffer(values, np.uint8), kept)   # a view, not a copy
    answer = client.get(f"/api/runs/{run_id}/tensors/v1")
    expected = io.BytesIO()
    np.save(expected, array, allow_pickle=False)
    assert answer.status_code == 200 and answer.content == expected.getvalue()
    assert answer.headers["content-length"] == str(len(expected.getvalue()))
