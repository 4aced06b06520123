"""`tf.autograph`: what a program may ask of AutoGraph, the part of tf.function that turns Python
control flow on tensors into graph ops.

Dagscope's tf.function does that job differently: its AST compiler (engine/capture/ast_compiler.py)
reads the function's source and emits graph ops directly (an `if` on a tensor becomes a cond, a
`while` on a tensor, a `for` over a tensor computed in the function or over tf.range(n) a while_loop,
a `for` over a tf.data.Dataset one loop over the elements), with no Python in between. So `to_code` has no
generated Python to show; it says so, and shows the source the compiler reads.
"""
from __future__ import annotations

import inspect
import textwrap
import types

from engine.compat.tensorflow._surface import unsupported_names
from engine.compat.tensorflow.function import DO_NOT_CONVERT as _DO_NOT_CONVERT


def to_code(entity, recursive=True, experimental_optional_features=None) -> str:
    """The function's source, headed by how Dagscope converts it (not AutoGraph's generated code)."""
    function = getattr(entity, "python_function", entity)
    try:
        source = textwrap.dedent(inspect.getsource(function))
    except (OSError, TypeError):
        raise ValueError(f"tf.autograph.to_code: the source of {entity!r} is not available") from None
    name = getattr(function, "__name__", "function")
    return (f"# Dagscope converts {name} without generating Python: its compiler reads this source and\n"
            "# builds the graph directly (an `if` on a tensor becomes a cond, a `while` or `for` over a\n"
            "# tensor a while_loop). TensorFlow's AutoGraph would show the Python it generates here.\n"
            + source)


def _do_not_convert(func=None):
    """`@tf.autograph.experimental.do_not_convert`: tf.function traces this function as-is (its
    Python `if`s run once, on the values seen while tracing)."""
    if func is None:
        return _do_not_convert
    setattr(func, _DO_NOT_CONVERT, True)
    return func


def set_verbosity(level, alsologtostdout=False) -> None:
    """AutoGraph's logging level: Dagscope's conversion logs nothing, so there is nothing to change."""


experimental = types.ModuleType("engine.compat.tensorflow.autograph.experimental",
                                "tf.autograph.experimental: do_not_convert.")
experimental.do_not_convert = _do_not_convert
experimental.__getattr__ = unsupported_names("tf.autograph.experimental", vars(experimental))

__getattr__ = unsupported_names("tf.autograph", globals())
