"""The run scheduler: one run per core, a bounded queue, one run in flight per client, demotion."""
import threading
import time

import pytest

from app.services.runs import Busy, Scheduler


def test_queue_beyond_its_limit_is_busy_with_retry_after():
    s = Scheduler(workers=1, queue_limit=1, background=0, per_client=1)
    s.admit("a")
    s.waiting, s.running = 0, 1     # a's run now holds the only core
    s.admit("b")           # b waits in the queue
    with pytest.raises(Busy) as busy:
        s.admit("c")
    assert busy.value.retry_after >= 1


def test_one_run_in_flight_per_client_unless_unlimited():
    s = Scheduler(workers=2, queue_limit=4, background=0, per_client=1)
    s.admit("a")
    with pytest.raises(Busy):
        s.admit("a")
    s.admit("a", limited=False)


def _wait_until(condition, timeout: float = 10.0) -> None:
    """Poll a condition on the scheduler's state: no fixed sleep that a loaded machine outlasts."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the scheduler did not get there in time"
        time.sleep(0.002)


def test_cores_are_never_oversubscribed_and_slots_come_back():
    s = Scheduler(workers=2, queue_limit=10, background=0, per_client=10)
    peak, lock = [0], threading.Lock()
    pair = threading.Barrier(2, timeout=10)      # each run waits for a second one to run beside it

    def work(on_slow):
        with lock:
            peak[0] = max(peak[0], s.running)
        pair.wait()
        with lock:
            peak[0] = max(peak[0], s.running)
        return {}
    for _ in range(6):
        s.admit("a")
    threads = [threading.Thread(target=s.execute, args=("a", work)) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert peak[0] == 2
    assert s.status() == {"workers": 2, "running": 0, "waiting": 0, "background": 0, "queue_limit": 10}


def test_a_slow_run_gives_its_core_to_the_queue():
    s = Scheduler(workers=1, queue_limit=5, background=1, per_client=5)
    slow_demoted, fast_done = threading.Event(), threading.Event()

    def slow(on_slow):
        on_slow(999_999_999)   # no such pid: renicing fails quietly
        slow_demoted.set()
        fast_done.wait(5)
        return {}

    def fast(on_slow):
        fast_done.set()
        return {}
    s.admit("x")
    s.admit("y")
    t = threading.Thread(target=s.execute, args=("x", slow))
    t.start()
    slow_demoted.wait(5)
    s.execute("y", fast)        # would deadlock if the slow run still held the only core
    t.join(5)
    assert fast_done.is_set() and s.status()["background"] == 0 and s.status()["running"] == 0


def test_waiting_runs_start_in_arrival_order():
    s = Scheduler(workers=1, queue_limit=10, background=0, per_client=10)
    order, gate = [], threading.Event()

    def blocker(on_slow):
        gate.wait(5)
        return {}

    def record(n):
        return lambda on_slow: order.append(n) or {}
    for _ in range(6):
        s.admit("a")
    first = threading.Thread(target=s.execute, args=("a", blocker))
    first.start()
    _wait_until(lambda: s.status()["running"] == 1)
    threads = []
    for n in range(5):
        t = threading.Thread(target=s.execute, args=("a", record(n)))
        t.start()
        threads.append(t)
        _wait_until(lambda: len(s._line) == n + 1)     # this one is in line before the next arrives
    gate.set()
    for t in [first, *threads]:
        t.join(5)
    assert order == [0, 1, 2, 3, 4]
