"""Pass snapshots store repeated graphs and IR texts as patches: the page's resolver
(static/js/passgraphs.js, run by node when it is installed) and expand_snapshots give back exactly
the whole snapshots, and a record with several passes over a large graph gets much smaller."""
import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from engine.ir import Graph
from engine.passes import run_pipeline
from engine.record.snapshots import compact_snapshots, expand_snapshots, pass_snapshots
from tests.engine.passes.test_passes import redundant_graph, random_graphs

ROOT = Path(__file__).resolve().parents[3]


def whole_snapshots(g: Graph) -> list[dict]:
    """The snapshots of a pipeline run, before compaction."""
    return pass_snapshots(run_pipeline(g), compact=False)


def layered_graph(layers: int = 30) -> Graph:
    """A deep stack of matmul + bias + tanh: many nodes that most passes leave alone."""
    g = Graph("layers")
    h = g.placeholder("x", (4, 8))
    for i in range(layers):
        w = g.placeholder(f"w{i}", (8, 8), role="param")
        b = g.placeholder(f"b{i}", (8,), role="param")
        h = g.call("tanh", g.call("add", g.call("mul", g.call("matmul", h, w), 1.0), b))
    g.output(g.call("sum", h))
    return g


def size(obj) -> int:
    return len(json.dumps(obj))


def test_compact_snapshots_expand_to_the_whole_ones():
    for g in (redundant_graph(), layered_graph()):
        whole = whole_snapshots(g)
        compact = pass_snapshots(run_pipeline(g))
        assert [s["name"] for s in compact] == [s["name"] for s in whole]
        assert expand_snapshots(compact) == whole
        for snap in compact:      # the keys stay; a null graph or ir has its patch beside it
            assert {"graph", "ir"} <= set(snap)
            assert (snap["graph"] is None) == ("graph_patch" in snap)
            assert (snap["ir"] is None) == ("ir_patch" in snap)
        assert compact[0]["graph"] is not None and compact[0]["ir"] is not None


def test_unchanged_passes_cost_almost_nothing():
    g = layered_graph()
    whole, compact = whole_snapshots(g), pass_snapshots(run_pipeline(g))
    assert size(compact) < 0.5 * size(whole), (size(compact), size(whole))
    memory = compact[-1]          # memory planning changes no node: its graph is fusion's
    assert memory["name"] == "memory_planning"
    assert all(isinstance(n, str) for n in memory["graph_patch"]["nodes"]) and "edges" not in memory["graph_patch"]
    assert memory["ir_patch"] == {"base": len(compact) - 2, "lines": [[0, len(whole[-1]["ir"].split("\n"))]]}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_graphs())
def test_random_graphs_round_trip(g):
    with np.errstate(all="ignore"):
        whole = whole_snapshots(g)
    assert expand_snapshots(compact_snapshots(whole)) == whole


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_page_resolver_gives_the_same_graphs_and_texts(tmp_path):
    g = layered_graph(12)
    whole, compact = whole_snapshots(g), pass_snapshots(run_pipeline(g))
    source = (ROOT / "static/js/passgraphs.js").read_text()
    harness = source + """
const passes = JSON.parse(require_input());
process.stdout.write(JSON.stringify(passes.map((p, i) => ({graph: passGraph(passes, i), ir: passIR(passes, i)}))));
"""
    harness = harness.replace("require_input()", "(await new Promise((ok) => { let s = '';"
                              " process.stdin.on('data', (d) => s += d); process.stdin.on('end', () => ok(s)); }))")
    out = subprocess.run(["node", "--input-type=module", "-e", harness], input=json.dumps(compact),
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    resolved = json.loads(out.stdout)
    assert [r["graph"] for r in resolved] == [s["graph"] for s in whole]
    assert [r["ir"] for r in resolved] == [s["ir"] for s in whole]
