"""A recorded torch.compile shows what it compiled: the Passes tab's snapshots are the pipeline run
whose final graph the generated code executes (the forward with the values its backward saves as
extra outputs), the Backward tab is the backward graph it compiled, and recording optimizes and
differentiates nothing a second time."""
import functools

import numpy as np
import pytest

import engine
from engine import autodiff
from engine.ir.printer import format_graph
from engine.passes import pipeline
from engine.record import Recorder, use_recorder
from engine.record.snapshots import expand_snapshots


def step(x, w):
    y = (x * w + 1.0).tanh()
    return (y * y).sum()


def compiled_and_recorded(requires_grad: bool = True):
    engine.manual_seed(0)
    x, w = engine.randn(64), engine.randn(64, requires_grad=requires_grad)
    rec = Recorder()
    with use_recorder(rec):
        cf = engine.compile(step)
        loss = cf(x, w)
        if requires_grad:
            loss.backward()
    (static,) = [g for g in rec.finish() if g["kind"] == "static"]
    (entry,) = cf._cache.entries.values()
    return static, entry.runner, w


@pytest.mark.parametrize("requires_grad", [True, False])
def test_the_passes_shown_end_in_the_graph_the_kernels_run(requires_grad):
    static, runner, _ = compiled_and_recorded(requires_grad)
    assert runner.backend != "interpreter", "code generation failed: nothing compiled to compare with"
    final = expand_snapshots(static["passes"])[-1]
    assert final["ir"] == format_graph(runner.forward.graph)
    assert final["name"] == "memory_planning"
    # the first pass starts from the forward that was compiled: with a backward, the tanh its
    # vjp reads is one more output (the saved value), and fusion keeps it a kernel's result
    outputs = format_graph(runner.forward.graph).strip().splitlines()[-1].strip()
    assert outputs == ("return (%7, %5)" if requires_grad else "return (%7)")


def test_the_backward_shown_is_the_one_compiled():
    static, runner, w = compiled_and_recorded()
    # only w requires grad: the compiled backward returns its gradient alone, and so does the record's
    (out,) = [n["id"] for n in static["backward"]["nodes"] if n["kind"] == "output"]
    assert len([e for e in static["backward"]["edges"] if e["dst"] == out]) == 1
    assert runner.differentiated.wrt == [runner.graph.placeholders[1].id]
    assert np.isfinite(w.grad.array).all()


def test_a_recorded_compile_runs_the_pipeline_and_autodiff_once_each(monkeypatch):
    counts = {"pipeline": 0, "autodiff": 0}
    first = pipeline.DEFAULT_PASSES[0]

    @functools.wraps(first)
    def counted(graph):
        counts["pipeline"] += 1
        return first(graph)
    monkeypatch.setattr(pipeline, "DEFAULT_PASSES", [counted] + pipeline.DEFAULT_PASSES[1:])
    joint_graph = autodiff.joint_graph

    def counted_joint(*args, **kwargs):
        counts["autodiff"] += 1
        return joint_graph(*args, **kwargs)
    monkeypatch.setattr(autodiff, "joint_graph", counted_joint)
    static, runner, _ = compiled_and_recorded()
    assert runner.backend != "interpreter"
    # one pipeline on the forward and one on the backward, both compiled; one autodiff
    assert counts == {"pipeline": 2, "autodiff": 1}
    assert [p["name"] for p in static["passes"]][0] == "constant_folding"
