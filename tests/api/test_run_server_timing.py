"""POST /api/run says where the run's time went (Server-Timing): the queue, the sandbox's start,
the supervisor's account of the child (set-up, program, exit, after), the record's checks, and
the child's CPU time."""
import re

from app.routes.run import server_timing

CODE = "import torch\nx = torch.ones(100, 100, requires_grad=True)\n(x * 2).sum().backward()\n"


def test_a_run_answers_where_its_time_went(client):
    r = client.post("/api/run", json={"code": CODE})
    assert r.status_code == 200 and r.json()["ok"], r.text
    phases = {m[0]: float(m[1]) for m in re.findall(r"([a-z]+);dur=([0-9.]+)", r.headers["server-timing"])}
    assert list(phases) == ["queue", "start", "setup", "program", "exit", "after", "check", "cpu"]
    # the sandbox's parts are the run's own: together no longer than the run the record says it
    # took (its elapsed_ms is taken before the checks)
    wall = sum(phases[k] for k in ("start", "setup", "program", "exit", "after"))
    assert 0 < wall <= r.json()["elapsed_ms"] + 1
    # (the program's part may read 0: a supervisor that gets the core late reads both frames at once)
    assert all(v >= 0 for v in phases.values()) and phases["cpu"] > 0


def test_server_timing_keeps_the_order_and_leaves_out_what_did_not_happen():
    assert server_timing({"cpu": 0.25, "queue": 0.001, "check": 0.0123}) == "queue;dur=1.0, check;dur=12.3, cpu;dur=250.0"
    assert server_timing({}) == ""
