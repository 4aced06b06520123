"""Static capture: tracing, scripting (AST), engine.function (per-signature, autograph-style) and
compile (capture + passes + execution). `from engine.capture import trace, script, function, compile`."""
from engine.capture.scripting import script
from engine.capture.tracing import trace


def __getattr__(name):
    # Imported lazily: compile and function pull in the pass pipeline and autodiff.
    if name == "compile":
        from engine.capture.compiler import compile as compile_
        globals()["compile"] = compile_
        return compile_
    if name == "function":
        from engine.capture.graph_function import function
        globals()["function"] = function
        return function
    raise AttributeError(f"module 'engine.capture' has no attribute {name!r}")


__all__ = ["trace", "script", "compile", "function"]
