"""`import jax` inside a run: JAX's transformations on Dagscope's engine.

The modules import only downward, bottom to top:
1. array.py (jax.Array: an engine Tensor with JAX's dtype rules, immutability and repr), debug.py
   (jax.debug.print: a debug_print node when traced), tree_util.py
   (pytrees), tracing.py (staging a function into the IR with the engine's tracer), jaxpr.py (the IR
   printed as JAX's jaxpr text);
2. numpy/ (jnp: each function one or a few registry ops; installs the Array's operators);
3. jit_function.py (jax.jit and make_jaxpr), forward.py (forward mode: the JVP rules of
   engine/ops/jvp.py applied as ops run), transforms.py (grad, vjp, jvp, Jacobians, custom
   derivatives), batching.py (vmap: the traced graph run with batching rules), control_flow.py
   (lax.cond/switch/while_loop/fori_loop/scan);
4. lax.py, nn.py, scipy/, errors.py, tree.py, config.py, test_util.py (check_grads), and this namespace.
random.py (jax.random, JAX's threefry2x32 bit for bit) sits in step 4 too.
A name outside this surface fails with UnsupportedError naming it.
"""
from __future__ import annotations

import numpy as _np

from engine.compat.jax import debug, errors, lax, nn, numpy, random, scipy, test_util, tree, tree_util  # noqa: F401
from engine.compat.jax._surface import unsupported_names
from engine.compat.jax.array import CPU as _CPU
from engine.compat.jax.array import AbstractArray as Array
from engine.compat.jax.config import config  # noqa: F401
from engine.compat.jax.jit_function import ShapeDtypeStruct, eval_shape, jit, make_jaxpr  # noqa: F401
from engine.compat.jax.transforms import (checkpoint, custom_jvp, custom_vjp, grad, hessian, jacfwd,  # noqa: F401
                                          jacrev, jvp, linearize, remat, stop_gradient, value_and_grad, vjp)
from engine.compat.jax.batching import vmap  # noqa: F401
from engine.compat.jax.tree_util import tree_flatten, tree_leaves, tree_map, tree_structure, tree_unflatten  # noqa: F401

__version__ = "0.10.2+dagscope"
Array = Array
numpy = numpy
jacobian = jacrev


def devices(backend=None) -> list:
    return [_CPU]


local_devices = devices


def device_count() -> int:
    return 1


local_device_count = device_count


def default_backend() -> str:
    return "cpu"


def device_put(x, device=None):
    return tree_map(lambda v: numpy.asarray(v), x)


def device_get(x):
    return tree_map(lambda v: _np.asarray(v) if isinstance(v, Array) else v, x)


def block_until_ready(x):
    return x


__getattr__ = unsupported_names("jax", globals())
