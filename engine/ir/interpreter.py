"""The numpy reference interpreter: the oracle every pass and every compiled kernel is checked against.
It is the graph evaluator (engine/ir/evaluator.py) on numpy arrays, each op the registry's forward."""
from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from engine.ir.evaluator import Interpretation, walk
from engine.ir.graph import Graph
from engine.ops.registry import OPS


class Arrays(Interpretation):
    """numpy arrays: an op is its registry forward (`OpDef.run`, always an ndarray)."""

    def apply(self, name, inputs, attrs):
        return OPS[name].run(*inputs, **attrs)

    def input(self, node, x):
        return np.asarray(getattr(x, "array", x))

    def constant(self, node):
        return node.value

    def truth(self, x) -> bool:
        return truth(x)


ARRAYS = Arrays()


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
    return {n.id: ARRAYS.input(n, a) for n, a in zip(holders, args)}


def evaluate(graph: Graph, args, env: dict | None = None, decided=None) -> dict[str, np.ndarray]:
    """Every value of the graph, by id (what the recorder shows on nodes). `decided` hears the
    graph's own cond and while_loop decisions (engine.ir.evaluator.walk)."""
    env = dict(env or {})
    env.update(bind_inputs(graph, args))
    return walk(graph, env, ARRAYS, decided)


def run(graph: Graph, args: Sequence | Mapping) -> list[np.ndarray]:
    """The graph's outputs for these inputs."""
    env = evaluate(graph, args)
    return [env[v.id] for v in graph.outputs]


def truth(x) -> bool:
    arr = np.asarray(x)
    if arr.size != 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(arr.reshape(()))
