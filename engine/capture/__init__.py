"""Static capture: tracing, scripting (AST) and engine.function (per-signature, autograph-style),
each making Graphs. `from engine.capture import trace, script, function`. (torch.compile, which
also compiles and runs the graph, is engine/codegen/compiled_function.py.)"""
from engine.capture.scripting import script
from engine.capture.tracing import trace


def __getattr__(name):
    if name == "function":
        # Imported lazily: function pulls in the pass pipeline and autodiff, which trace and script need not.
        from engine.capture.graph_function import function
        globals()["function"] = function
        return function
    raise AttributeError(f"module 'engine.capture' has no attribute {name!r}")


__all__ = ["trace", "script", "function"]
