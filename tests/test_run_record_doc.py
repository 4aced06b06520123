"""docs/run-record.md names every field the run record has: each key found in real records (the
browser fixtures, made by real runs, and runs of what they lack: gradcheck, summaries, a stale
trace) is written in it as `key`, and so are the fields and capture kinds the server's schema
(app/sandbox/record_schema.py) knows."""
from __future__ import annotations

import json
import re
from pathlib import Path

from app.sandbox import record_schema
from app.sandbox.limits import Limits

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs" / "run-record.md").read_text()
NAMED = set(re.findall(r"`([^`\s]+)`", DOC)) | set(re.findall(r'"([A-Za-z_]+)"', DOC))
# objects whose keys are data (ids, attribute names, sub-graph names), not fields
MAPS = {"replaced", "attrs", "subgraphs"}

MORE = [("""import torch
from torch.utils.tensorboard import SummaryWriter
w = SummaryWriter()
w.add_scalar("loss", 0.5, 0)
w.add_histogram("h", torch.randn(10), 0)
x = torch.randn(3, requires_grad=True)
(x * x).sum().backward()
""", {"gradcheck": True}), ("""import torch
def f(x):
    if x.sum() > 0:
        return x * 2
    return x - 1
t = torch.jit.trace(f, (torch.ones(2),))
t(-torch.ones(2))
c = torch.compile(f)
c(torch.ones(2)); c(torch.ones(3))
""", {}), ("""import torch
w = torch.ones(70, requires_grad=True)
for step in range(3):
    (w * w).sum().backward()
""", {}), ("import torch\nfor i in range(3):\n  1 / 0 if i == 2 else None\n", {})]


def keys_of(value, out: set[str]) -> set[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            out.add(key)
            if key not in MAPS:
                keys_of(item, out)
    elif isinstance(value, list):
        for item in value:
            keys_of(item, out)
    return out


def records() -> list[dict]:
    from engine.runner import run_user_code
    found = [json.loads(p.read_text())["record"] for p in sorted((ROOT / "tests/browser/fixtures").glob("*.json"))]
    return found + [run_user_code(code, options) for code, options in MORE]


def test_every_field_of_real_records_is_named():
    keys: set[str] = set()
    for record in records():
        keys_of(record, keys)
    keys |= set(Limits().as_dict())
    missing = sorted(k for k in keys if k not in NAMED)
    assert not missing, f"fields the record has that docs/run-record.md does not name: {missing}"


def test_the_schemas_fields_and_kinds_are_named():
    for name in (*record_schema.CHILD_FIELDS, *record_schema.CHILD_KINDS, *record_schema.GRAPH_KINDS,
                 *(c for c in record_schema.CAPTURES if c)):
        assert name in NAMED, name
