"""The one op registry: every op's shape/dtype rule, numpy forward and vector-Jacobian rule.

Eager mode, the IR interpreter, graph autodiff, the passes and the code generator all read
`OPS`. A vjp rule is written against a *builder* `F` whose methods are the registered ops
(`F.mul(g, b)`), so the same rule runs on numpy arrays (fast eager backward), on Tensors
(`create_graph=True`) and on IR values (graph autodiff: the backward of a graph is a graph).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

# Op kinds, used by fusion and code generation to decide what may be fused into one loop nest.
ELEMENTWISE = "elementwise"   # out[i] = f(in0[i], in1[i], ...) after broadcasting
REDUCE = "reduce"             # sums/means/max over some axes
MOVEMENT = "movement"         # reshape, transpose, expand: no arithmetic
MATMUL = "matmul"             # extern calls to BLAS
INDEX = "index"               # gather/scatter/slicing
NN = "nn"                     # conv, pooling and other library calls
KINDS = (ELEMENTWISE, REDUCE, MOVEMENT, MATMUL, INDEX, NN)


@dataclass(frozen=True)
class Spec:
    """Shape and dtype of a value, without its data (what the IR and shape rules speak)."""
    shape: tuple[int, ...]
    dtype: np.dtype

    @property
    def ndim(self) -> int:
        return len(self.shape)


@dataclass(frozen=True)
class OpDef:
    name: str
    kind: str
    forward: Callable[..., np.ndarray]          # (*arrays, **attrs) -> array
    infer: Callable[..., Spec]                  # (*specs, **attrs) -> Spec of the output
    vjp: Callable[..., tuple] | None            # (F, grad, *inputs, out, **attrs) -> grads per input
    grad_fn: str | Callable[..., str]           # PyTorch's backward node name, e.g. "MulBackward0",
                                                # or (*specs, **attrs) -> name where it depends on shapes
    formula: str                                # forward formula shown on the explanation card
    rule: str                                   # backward rule in words, shown by the stepper
    differentiable: bool = True                 # comparisons etc. produce no gradient
    attrs: tuple[str, ...] = ()                 # attribute names the op takes
    saves: tuple | None = None                  # what the vjp reads: input indices and/or "out";
                                                # None = every input. Decides whether a second
                                                # backward through a freed node is an error.
    doc: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    saves_for: dict | None = None
    # Optional refinement of `saves`: input index -> what that input's gradient formula reads. A node
    # then holds only what the inputs that need a gradient read, as PyTorch saves `other` of x * y
    # only when x requires grad: whether a second backward through the node is an error depends on it.
    vjp_masked: Callable[..., tuple] | None = None
    # Optional: (F, needs, grad, *inputs, out, **attrs) -> grads, like `vjp` but computing only the
    # gradients whose `needs` flag is True (None for the rest). Eager backward uses it to skip work
    # (PyTorch's needs_input_grad); `vjp` stays the complete rule that graph autodiff reads.
    numpy_vjp: Callable[..., tuple | None] | None = None
    # Optional: (needs, grad, *input_arrays, out, **attrs) -> grads (needs as for vjp_masked; a
    # gradient whose flag is False may be computed or None), the vjp rule written straight in numpy
    # for eager backward (no builder dispatch per step), or None where it does not cover the case
    # (then the rule runs). It must make the same numpy calls as the rule on the NumpyBuilder, so
    # that the results are bit for bit the same (tests/engine/test_fast_paths.py checks it).

    # Traits: what each stage needs to know of an op, kept here rather than as name sets in the
    # stages (eager in-place ops, capture, the memory plan, the code generator all read these).
    view: bool = False               # the output is a view of input 0: numpy returns a view, an in-place
                                     # change of it reaches its base (PyTorch's views), the executor gives
                                     # it no memory of its own
    copies: bool = False             # a MOVEMENT op that copies into a new array (cat, stack), not a view
    writes_out: bool = False         # the executor runs it into its planned buffer with `out=` (BLAS,
                                     # np.concatenate/np.stack) or a kernel of its own (softmax)
    normalize: bool = False          # a normalization along one dim with a generated kernel of its own
                                     # (codegen/kernel.py), not fused with what is around it
    library_kernel: bool = False     # lowered to a hand-written C kernel (codegen/library_kernels.py)
    random_mask_input: int | None = None   # the input holding a random mask drawn in Python (dropout: 1):
                                           # a capture freezes it into a constant (capture/common.py warns)


    def run(self, *arrays: np.ndarray, **attrs) -> np.ndarray:
        """The numpy forward, always returning an ndarray (ufuncs on 0-d arrays return scalars)."""
        out = self.forward(*arrays, **attrs)
        return out if type(out) is np.ndarray else np.asarray(out)

    def grad_fn_name(self, *specs, **attrs) -> str:
        return self.grad_fn(*specs, **attrs) if callable(self.grad_fn) else self.grad_fn


OPS: dict[str, OpDef] = {}


def register(op: OpDef) -> OpDef:
    if op.name in OPS:
        raise ValueError(f"op {op.name!r} registered twice")
    if op.kind not in KINDS:
        raise ValueError(f"op {op.name!r} has unknown kind {op.kind!r}")
    if op.differentiable and op.vjp is None:
        raise ValueError(f"differentiable op {op.name!r} needs a vjp rule")
    OPS[op.name] = op
    return op


def get(name: str) -> OpDef:
    try:
        return OPS[name]
    except KeyError:
        raise KeyError(f"no op named {name!r}; registered ops: {', '.join(sorted(OPS))}") from None
