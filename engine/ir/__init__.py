"""The static-graph IR: Graph/Node/Value (graph.py), text (printer.py), verifier, reference
interpreter, the IR builder for vjp rules, and the fusion/memory plan types. (The run-record form of
a graph belongs to the record layer above: engine/record/graph_json.py.)"""
from engine.ir.builder import IRBuilder
from engine.ir.graph import Graph, Node, Value
from engine.ir.interpreter import evaluate, run
from engine.ir.printer import format_graph
from engine.ir.schedule import Buffer, FusionGroup, Interval, MemoryPlan
from engine.ir.verify import VerifyError, verify

__all__ = ["Graph", "Node", "Value", "IRBuilder", "evaluate", "run", "format_graph",
           "FusionGroup", "MemoryPlan", "Buffer", "Interval", "verify", "VerifyError"]
