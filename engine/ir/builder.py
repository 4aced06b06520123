"""The IR builder: registry vjp rules (`F.mul(g, b)`) run on IR values emit graph nodes."""
from __future__ import annotations

from engine.ir.graph import Graph
from engine.ops.builder import Builder


class IRBuilder(Builder):
    """`F.<op>(...)` appends a call node to `graph` (scalars and arrays become constants)."""

    def __init__(self, graph: Graph):
        self.graph = graph

    def apply(self, name, inputs, attrs):
        return self.graph.call(name, *inputs, **attrs)
