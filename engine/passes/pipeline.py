"""The pass pipeline: runs a readable list of passes, verifies the graph after each, and keeps
each pass's step (the graph before it and its PassResult). The record layer turns the steps into
the page's pass snapshots (engine/record/snapshots.py; the pass names are the run-record contract)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from engine.ir.graph import Graph
from engine.ir.verify import verify
from engine.passes.algebraic_simplification import algebraic_simplification
from engine.passes.base import PassResult
from engine.passes.constant_folding import constant_folding
from engine.passes.cse import cse
from engine.passes.dce import dce
from engine.passes.fusion import fusion
from engine.passes.memory_planning import memory_planning

Pass = Callable[[Graph], PassResult]

DEFAULT_PASSES: list[Pass] = [
    constant_folding,
    algebraic_simplification,
    cse,
    dce,
    fusion,
    memory_planning,
]


@dataclass
class PassStep:
    """One pass of a pipeline run: the graph it was given and what it returned."""
    name: str
    before: Graph
    result: PassResult


@dataclass
class PipelineResult:
    graph: Graph                                   # the optimized graph (fusion plan and memory plan on it)
    steps: list[PassStep] = field(default_factory=list)   # pass by pass (the record's snapshots are made from these)


def run_pipeline(graph: Graph, passes: list[Pass] | None = None, check: bool = True,
                 keep_steps: bool = True) -> PipelineResult:
    """Run `passes` in order on a copy of `graph`; `check` runs the verifier after each pass.
    Every pass returns a new graph, so each step keeps the graphs it saw as they were;
    `keep_steps=False` (compiling, nothing shown) keeps only the final graph."""
    passes = DEFAULT_PASSES if passes is None else passes
    if check:
        verify(graph)
    current = graph
    out = PipelineResult(graph)
    for p in passes:
        res = p(current)
        if check:
            try:
                verify(res.graph)
            except AssertionError as exc:
                raise AssertionError(f"after pass {p.__name__}: {exc}") from exc
        if keep_steps:
            out.steps.append(PassStep(p.__name__, current, res))
        current = res.graph
    out.graph = current
    return out


def outputs_equal(a: list, b: list, rtol: float = 1e-5, atol: float = 1e-6) -> bool:
    """The preservation check tests use: same shapes, dtypes and values (NaN equal to NaN)."""
    return len(a) == len(b) and all(
        np.shape(x) == np.shape(y) and np.asarray(x).dtype == np.asarray(y).dtype
        and (np.array_equal(x, y) if np.asarray(x).dtype == object      # strings, or an iterator op's objects
             else np.allclose(x, y, rtol=rtol, atol=atol, equal_nan=True)) for x, y in zip(a, b))
