"""The confined dot started in advance (app/services/dot_process.py, Warm): a drawing made with it
is the one a fresh dot makes, confined alike; one not used within DAGSCOPE_RENDER_WARM seconds is
ended, leaving no process behind."""
import os
import shutil
import threading
import time

import pytest

from app.services import dot_process

pytestmark = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz is not installed")
SOURCE = b'digraph { a [label="x = 1"]; a -> b [label="[4, 64]"] }'


def _waiting(warm, timeout=10.0):
    deadline = time.monotonic() + timeout
    while warm._ready is None:
        assert time.monotonic() < deadline, "no dot was started in advance"
        time.sleep(0.02)
    return warm._ready[1]


@pytest.fixture
def warm(monkeypatch):
    monkeypatch.setattr(dot_process, "WARM", dot_process.Warm())
    yield dot_process.WARM
    dot_process.WARM.stop()


def test_a_drawing_takes_the_waiting_dot_and_draws_what_a_fresh_one_draws(warm, monkeypatch):
    monkeypatch.setenv("DAGSCOPE_RENDER_WARM", "0")
    fresh, fresh_layers = dot_process.run_dot("svg", SOURCE, dot_process.DotLimits(10))
    monkeypatch.setenv("DAGSCOPE_RENDER_WARM", "60")
    warm.prepare()
    waiting = _waiting(warm)
    starts = []
    real_start = dot_process._Spec.start
    monkeypatch.setattr(dot_process._Spec, "start", lambda spec: starts.append(threading.current_thread()) or real_start(spec))
    svg, layers = dot_process.run_dot("svg", SOURCE, dot_process.DotLimits(10))
    assert threading.current_thread() not in starts and not waiting.alive()       # it was used, not a new one
    assert svg == fresh and layers == fresh_layers and "rlimits" in layers
    assert any(layer.startswith("Landlock") or layer.startswith("no Landlock") for layer in layers)
    assert _waiting(warm) is not waiting            # and the next one waits


def test_a_dot_not_used_in_time_is_ended(warm, monkeypatch):
    monkeypatch.setenv("DAGSCOPE_RENDER_WARM", "0.3")
    warm.prepare()
    pid = _waiting(warm).proc.pid
    deadline = time.monotonic() + 10
    while warm._ready is not None or os.path.exists(f"/proc/{pid}"):
        assert time.monotonic() < deadline, "the idle dot was not ended"
        time.sleep(0.05)
    assert warm._wanted is None                     # nor replaced until a run asks again


def test_a_waiting_dot_still_keeps_the_deadline(warm, monkeypatch):
    monkeypatch.setenv("DAGSCOPE_RENDER_WARM", "60")
    warm.prepare()
    _waiting(warm)
    big = ("digraph { " + " ".join(f"n{i} -> n{(i * 7919) % 3000};" for i in range(3000)) + " }").encode()
    started = time.monotonic()
    with pytest.raises(dot_process.DotFailed) as failed:
        dot_process.run_dot("svg", big, dot_process.DotLimits(0.3))
    assert failed.value.reason == "timeout" and time.monotonic() - started < 3


def test_a_drawing_held_starts_its_next_dot_when_the_block_ends(warm, monkeypatch):
    # render.py holds it while the SVG is checked: a start beside the check slowed it
    monkeypatch.setenv("DAGSCOPE_RENDER_WARM", "60")
    warm.prepare()
    waiting = _waiting(warm)
    with warm.held():
        svg, _ = dot_process.run_dot("svg", SOURCE, dot_process.DotLimits(10))
        assert b"<svg" in svg and not waiting.alive()
        assert warm._ready is None and warm._wanted is None        # none asked for yet
    assert _waiting(warm) is not waiting                            # and now the next one waits
