"""The static-graph IR: Graph/Node/Value (graph.py), text (printer.py), verifier, reference
interpreter, the IR builder for vjp rules, the run-record form, and the fusion/memory plan types."""
from engine.ir.builder import IRBuilder
from engine.ir.graph import Graph, Node, Value
from engine.ir.interpreter import evaluate, run
from engine.ir.printer import format_graph
from engine.ir.record import graph_to_record
from engine.ir.schedule import Buffer, FusionGroup, Interval, MemoryPlan
from engine.ir.verify import VerifyError, verify

__all__ = ["Graph", "Node", "Value", "IRBuilder", "evaluate", "run", "format_graph", "graph_to_record",
           "FusionGroup", "MemoryPlan", "Buffer", "Interval", "verify", "VerifyError"]
