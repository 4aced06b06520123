"""The numpy reference interpreter: the oracle every pass and every compiled kernel is checked against."""
from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from engine.ir.graph import CALL, COND, CONSTANT, OUTPUT, PLACEHOLDER, WHILE, Graph
from engine.ops.registry import OPS

MAX_LOOP_ITERATIONS = 1_000_000     # a runaway while_loop fails instead of hanging a run


def bind_inputs(graph: Graph, args) -> dict[str, np.ndarray]:
    """Placeholder id -> array, from a sequence (placeholder order) or a mapping by name or id."""
    holders = graph.placeholders
    if isinstance(args, Mapping):
        env = {}
        for n in holders:
            key = n.out.name if n.out.name in args else n.id
            if key not in args:
                raise KeyError(f"no value given for input {n.out.name or n.id}")
            env[n.id] = np.asarray(args[key])
        return env
    args = list(args)
    if len(args) != len(holders):
        raise TypeError(f"{graph.name} takes {len(holders)} inputs but {len(args)} were given")
    return {n.id: np.asarray(getattr(a, "array", a)) for n, a in zip(holders, args)}


def evaluate(graph: Graph, args, env: dict | None = None) -> dict[str, np.ndarray]:
    """Every value of the graph, by id (what the recorder shows on nodes)."""
    env = dict(env or {})
    env.update(bind_inputs(graph, args))
    for node in graph.nodes:
        if node.kind in (PLACEHOLDER, OUTPUT):
            continue
        ins = [env[v.id] for v in node.inputs]
        if node.kind == CONSTANT:
            env[node.id] = node.value
        elif node.kind == CALL:
            env[node.id] = OPS[node.op].run(*ins, **node.attrs)
        elif node.kind == COND:
            branch = node.subgraphs["then" if truth(ins[0]) else "else"]
            for v, r in zip(node.outputs, run(branch, ins[1:])):
                env[v.id] = r
        elif node.kind == WHILE:
            carried = ins
            for _ in range(MAX_LOOP_ITERATIONS):
                if not truth(run(node.subgraphs["cond"], carried)[0]):
                    break
                carried = run(node.subgraphs["body"], carried)
            else:
                raise RuntimeError(f"while_loop {node.id} ran more than {MAX_LOOP_ITERATIONS} iterations")
            for v, r in zip(node.outputs, carried):
                env[v.id] = r
    return env


def run(graph: Graph, args: Sequence | Mapping) -> list[np.ndarray]:
    """The graph's outputs for these inputs."""
    env = evaluate(graph, args)
    return [env[v.id] for v in graph.outputs]


def truth(x) -> bool:
    arr = np.asarray(x)
    if arr.size != 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(arr.reshape(()))
