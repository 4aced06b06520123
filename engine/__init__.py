"""Dagscope's engine: a small deep-learning framework on numpy with eager autograd, static
capture, optimization passes and compiled C kernels. `import engine` (or `import dagscope` in a run)."""
from engine import ops  # noqa: F401  (registers every op)
from engine.autograd import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from engine.creation import arange, from_numpy, full, manual_seed, ones, rand, randint, randn, tensor, zeros
from engine.tensor import Tensor
from engine import tensor_methods  # noqa: F401,E402  (binds Tensor's methods that are engine.functional's)

__all__ = ["Tensor", "tensor", "zeros", "ones", "full", "arange", "rand", "randn", "randint", "from_numpy",
           "manual_seed", "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled"]


def __getattr__(name: str):
    # Static capture on first use: engine.function (tf.function-style), engine.trace, engine.script,
    # engine.compile. Lazy so that `import engine`, in every run, stays without the IR, passes and codegen.
    if name in ("function", "trace", "script"):
        import engine.capture as capture  # lazy: see above
        return getattr(capture, name)
    if name == "compile":
        from engine.codegen.compiled_function import compile as compile_  # lazy: see above
        return compile_
    if name == "onnx":        # dagscope.onnx.load: ONNX files read into the IR (engine/onnx)
        import engine.onnx as onnx_  # lazy: see above
        return onnx_
    raise AttributeError(f"module 'engine' has no attribute {name!r}")
