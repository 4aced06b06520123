"""JAX's transformations on the engine's reverse-mode autograd: grad, value_and_grad, vjp, jvp,
jacrev, jacfwd, hessian, custom_jvp and custom_vjp (vmap: batching.py).

`grad(f)(x)` runs f on a copy of x that requires grad (a `clone` op, so an enclosing trace or
transformation still sees where it came from) and walks the engine's backward pass from the output
(engine/backward.py), as `torch.autograd.grad` does; the run record shows the forward and backward
graphs as for any backward call. Transformations compose: inside another transformation or a
trace, the backward is taken with `create_graph`, so its ops are themselves recorded — grad of
grad is a higher derivative, and `make_jaxpr(grad(f))` shows the backward's equations.

Forward mode is its own transformation (forward.py: a JVP rule per op, applied as the function
runs). `jacfwd` stacks jvps of the basis vectors, `jacrev` vjps; their values are equal.

"""
from __future__ import annotations

import functools

import numpy as np

from engine import autograd, record
from engine.autograd_function import FunctionCtx, attach_custom_node
from engine.backward import run_backward
from engine.compat.jax import numpy as jnp
from engine.compat.jax import forward, tracing
from engine.compat.jax.array import Array, as_array, is_weak, set_weak, to_array
from engine.compat.jax.batching import batched_function
from engine.compat.jax.tree_util import tree_flatten, tree_map, tree_unflatten
from engine.errors import UnsupportedError
from engine.tensor import Tensor, apply

_LEVEL = tracing.GRAD_LEVEL      # transformations running (grad inside grad differentiates its own backward)


class _Level:
    """A differentiation running (grad, vjp, jvp): it records its ops even where the one around it does not
    (a custom_vjp's bwd calling jax.vjp runs under no_grad), as every JAX transformation differentiates."""

    def __enter__(self):
        _LEVEL[0] += 1
        self._recording = autograd.enable_grad()
        self._recording.__enter__()

    def __exit__(self, *exc):
        self._recording.__exit__(*exc)
        _LEVEL[0] -= 1
        return False


def _nested() -> bool:
    """Must a backward be recorded (create_graph): is anything around us differentiating or tracing?"""
    return _LEVEL[0] > 0 or tracing.active() is not None


def _differentiable_copy(x, allow_int: bool = False) -> Array:
    a = to_array(x)
    if a.array.dtype.kind not in "fc":
        if allow_int:
            return a
        raise TypeError(f"grad requires real- or complex-valued inputs (input dtype that is a sub-dtype of "
                        f"np.inexact), but got {a.array.dtype.name}. If you want to use Boolean- or integer-valued "
                        "inputs, use vjp or set allow_int to True.")
    t = apply("clone", a)
    if not t._requires_grad:
        t._requires_grad = True            # a leaf of this differentiation (grad_fn None)
    return set_weak(as_array(t), is_weak(a))


def _argnums(argnums, n: int) -> tuple:
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    for i in nums:
        if not -n <= i < n:
            raise TypeError(f"differentiating with respect to argnums={argnums} requires at least {max(nums) + 1} "
                            f"positional arguments to be passed by the caller, but got only {n} positional arguments.")
    return tuple(i % n for i in nums)


def _prepare(args: tuple, nums: tuple, allow_int: bool = False):
    """Arguments with the differentiated ones replaced by copies that require grad; their leaves, per argnum."""
    args = list(args)
    leaves_per = []
    for i in nums:
        leaves, tree = tree_flatten(args[i])
        copies = [_differentiable_copy(x, allow_int) for x in leaves]
        args[i] = tree_unflatten(tree, copies)
        leaves_per.append((copies, tree))
    return args, leaves_per


def _pull(outs: list, cts: list, leaves: list, call: str) -> list:
    """Gradients of Σ⟨out, ct⟩ with respect to `leaves` (zeros where unused)."""
    roots, seeds = [], []
    for o, c in zip(outs, cts):
        if isinstance(o, Tensor) and o._requires_grad and c is not None:
            roots.append(o)
            seeds.append(c if _nested() else np.asarray(c.array if isinstance(c, Tensor) else c, o.array.dtype))
    wanted = [x for x in leaves if x._requires_grad]
    # an output that is a differentiated input itself (grad(lambda x: x)) has no node between them: its
    # gradient is the seed, through an identity step the backward walks (else it found none: zeros)
    with autograd.enable_grad():
        roots = [apply("clone", o) if any(o is x for x in wanted) else o for o in roots]
    grads = {}
    if roots and wanted:
        create = _nested()
        if record.current() is not None and not create and tracing.active() is None:
            with record.backward_call(roots[0], True, call=call):
                found = run_backward(roots, seeds, retain_graph=True, create_graph=False, inputs=wanted,
                                     allow_unused=True)
        else:
            found = run_backward(roots, seeds, retain_graph=True, create_graph=create, inputs=wanted,
                                 allow_unused=True)
        grads = {id(x): g for x, g in zip(wanted, found)}
    out = []
    for x in leaves:
        g = grads.get(id(x))
        if g is None:
            g = jnp.zeros_like(x)
        out.append(set_weak(as_array(g), is_weak(x)))
    return out


# ---- grad and value_and_grad ---------------------------------------------------------------------

def _refuse_holomorphic(holomorphic: bool, name: str) -> None:
    if holomorphic:
        raise UnsupportedError(f"{name}(..., holomorphic=True) is not supported by Dagscope: it differentiates "
                               "complex functions, and Dagscope's engine computes in real numbers only.")


def value_and_grad(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False, reduce_axes=()):
    _refuse_holomorphic(holomorphic, "jax.value_and_grad")
    @functools.wraps(fun)
    def value_and_grad_f(*args, **kwargs):
        nums = _argnums(argnums, len(args))
        new_args, leaves_per = _prepare(args, nums, allow_int)
        with _Level():
            result = fun(*new_args, **kwargs)
        if has_aux:
            if not (isinstance(result, (tuple, list)) and len(result) == 2):
                raise TypeError("has_aux=True requires fun to return a pair (output, auxiliary data)")
            out, aux = result
        else:
            out, aux = result, None
        out = to_array(out)
        if out.array.shape != ():
            raise TypeError(f"Gradient only defined for scalar-output functions. Output had shape: {out.shape}.")
        if out.array.dtype.kind != "f":
            raise TypeError(f"grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), "
                            f"but got {out.array.dtype.name}. For holomorphic differentiation, pass "
                            "holomorphic=True. For differentiation of non-holomorphic functions involving complex "
                            "outputs, use jax.vjp directly.")
        flat = [x for copies, _ in leaves_per for x in copies]
        # (outside our own level: the backward is recorded only if something around this grad needs it)
        grads = _pull([out], [jnp.ones_like(out)], flat, ": jax.grad()")
        it = iter(grads)
        trees = [tree_unflatten(tree, [next(it) for _ in copies]) for copies, tree in leaves_per]
        g = trees[0] if isinstance(argnums, int) else tuple(trees)
        value = out
        return ((value, aux), g) if has_aux else (value, g)
    return value_and_grad_f


def grad(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False, reduce_axes=()):
    _refuse_holomorphic(holomorphic, "jax.grad")
    vg = value_and_grad(fun, argnums, has_aux, holomorphic, allow_int)

    @functools.wraps(fun)
    def grad_f(*args, **kwargs):
        value, g = vg(*args, **kwargs)
        return (g, value[1]) if has_aux else g
    return grad_f


# ---- vjp and jvp ----------------------------------------------------------------------------------

def vjp(fun, *primals, has_aux=False, reduce_axes=()):
    """(fun(*primals), vjp_fun[, aux]): vjp_fun(cotangent) is the gradients per primal, a tuple."""
    nums = tuple(range(len(primals)))
    new_args, leaves_per = _prepare(primals, nums, allow_int=True)
    with _Level():
        result = fun(*new_args)
    out, aux = result if has_aux else (result, None)
    out_leaves, out_tree = tree_flatten(out)
    out_arrays = [to_array(o) for o in out_leaves]
    flat = [x for copies, _ in leaves_per for x in copies]

    def vjp_fun(cotangent):
        ct_leaves, ct_tree = tree_flatten(cotangent)
        if ct_tree != out_tree:
            raise TypeError(f"Tree structure of cotangent input {ct_tree}, does not match structure of primal "
                            f"output {out_tree}.")
        cts = [to_array(c) for c in ct_leaves]
        for o, c in zip(out_arrays, cts):
            if o.shape != c.shape:
                raise ValueError(f"unexpected JAX type (e.g. shape/dtype) for argument to vjp function: got "
                                 f"{c.dtype.name}{list(c.shape)}, but expected {o.dtype.name}{list(o.shape)} because "
                                 "the corresponding output of the function had shape/dtype.")
        grads = _pull(out_arrays, cts, flat, ": jax.vjp()")
        it = iter(grads)
        return tuple(tree_unflatten(tree, [next(it) for _ in copies]) for copies, tree in leaves_per)
    primal_out = tree_unflatten(out_tree, out_arrays)
    return (primal_out, vjp_fun, aux) if has_aux else (primal_out, vjp_fun)


def jvp(fun, primals, tangents, has_aux=False):
    """(fun(*primals), J·tangents): forward mode, JAX's JVP interpreter (forward.py)."""
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError("primal and tangent arguments to jax.jvp must be tuples or lists; found "
                        f"{type(primals).__name__} and {type(tangents).__name__}.")
    if len(primals) != len(tangents):
        raise TypeError(f"jvp called with different primal and tangent arguments sizes: {len(primals)} and "
                        f"{len(tangents)}")
    args, pairs = [], []
    for p, t in zip(primals, tangents):
        p_leaves, p_tree = tree_flatten(p)
        t_leaves, t_tree = tree_flatten(t)
        if p_tree != t_tree:
            raise TypeError(f"primal and tangent arguments to jax.jvp must have the same tree structure; "
                            f"primals have tree structure {p_tree} whereas tangents have tree structure {t_tree}.")
        copies = []
        for x, tx in zip(p_leaves, t_leaves):
            x, tx = to_array(x), to_array(tx)
            if x.shape != tx.shape:
                raise ValueError(f"jvp called with different primal and tangent shapes;Got primal shape "
                                 f"{x.shape} and tangent shape as {tx.shape}")
            if x.dtype.kind in "fc" and x.dtype != tx.dtype:
                raise TypeError(f"primal and tangent arguments to jax.jvp do not match; dtypes must be equal, or in "
                                f"case of int/bool primal dtype the tangent dtype must be float0.Got primal dtype "
                                f"{x.dtype.name} and so expected tangent dtype {x.dtype.name}, but got tangent dtype "
                                f"{tx.dtype.name} instead.")
            c = set_weak(as_array(apply("clone", x)), is_weak(x))      # its own value: jvp(f, (x, x), (t, s))
            copies.append(c)
            pairs.append((c, tx))
        args.append(tree_unflatten(p_tree, copies))
    with forward.JVPTrace() as interp:
        for c, tx in pairs:
            if c.dtype.kind in "fc":
                interp.set(c, tx)
        with _Level():
            result = fun(*args)
    out, aux = result if has_aux else (result, None)
    out_leaves, out_tree = tree_flatten(out)
    out_arrays = [to_array(o) for o in out_leaves]
    tangents_out = []
    for o in out_arrays:
        t = interp.tangent(o)
        if t is None:
            t = jnp.zeros_like(o)
        elif is_weak(t) != is_weak(o):     # a tangent has its primal's type (an alias: t may be the caller's)
            t = as_array(apply("clone", t))
        tangents_out.append(set_weak(t, is_weak(o)))
    primal_out = tree_unflatten(out_tree, out_arrays)
    tangent_out = tree_unflatten(out_tree, tangents_out)
    return (primal_out, tangent_out, aux) if has_aux else (primal_out, tangent_out)


def linearize(fun, *primals):
    out = fun(*primals)
    return out, lambda *tangents: jvp(fun, primals, tangents)[1]


# ---- Jacobians ------------------------------------------------------------------------------------

def jacrev(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False):
    """As JAX computes it: the pullback of each basis vector of the outputs, batched (vmap over the
    vjp's pullback), each output leaf's rows then taken from the batch axis."""
    _refuse_holomorphic(holomorphic, "jax.jacrev")
    @functools.wraps(fun)
    def jacfun(*args, **kwargs):
        nums = _argnums(argnums, len(args))
        primals = [args[i] for i in nums]
        partial = _partial_in(fun, args, kwargs, nums)
        result = vjp(partial, *primals, has_aux=has_aux)
        out, pullback = result[0], result[1]
        out_leaves, out_tree = tree_flatten(out)
        out_arrays = [to_array(o) for o in out_leaves]
        basis = _std_basis(out_arrays)
        total = sum(o.size for o in out_arrays)
        if total:
            grads = batched_function(lambda *cts: pullback(tree_unflatten(out_tree, list(cts))))(*basis)
        else:
            grads = tuple(tree_map(lambda x: jnp.zeros((0,) + to_array(x).shape, to_array(x).dtype), p)
                          for p in primals)
        columns, at = [], 0                           # per output leaf: its rows of the batch, per primal
        for o in out_arrays:
            per_primal = []
            for p, g in zip(primals, grads):
                p_leaves, p_tree = tree_flatten(p)
                blocks = [jnp.reshape(to_array(gx)[at:at + o.size], o.shape + to_array(x).shape)
                          for x, gx in zip(p_leaves, tree_flatten(g)[0])]
                per_primal.append(tree_unflatten(p_tree, blocks))
            columns.append(per_primal[0] if isinstance(argnums, int) else tuple(per_primal))
            at += o.size
        jac = tree_unflatten(out_tree, columns)
        return (jac, result[2]) if has_aux else jac
    return jacfun


def _std_basis(leaves: list) -> list:
    """JAX's _std_basis: the identity over all the leaves' elements, each leaf's columns as
    (total,) + its shape, in its dtype."""
    total = sum(x.size for x in leaves)
    eye, basis, at = np.eye(total), [], 0
    for x in leaves:
        basis.append(Array(eye[:, at:at + x.size].reshape((total,) + x.shape).astype(x.dtype)))
        at += x.size
    return basis


def jacfwd(fun, argnums=0, has_aux=False, holomorphic=False):
    """As JAX computes it: one jvp per basis vector of the inputs, batched (vmap over the jvp, the
    primal output and aux unbatched), the tangents' last axis then split per input leaf."""
    _refuse_holomorphic(holomorphic, "jax.jacfwd")
    @functools.wraps(fun)
    def jacfun(*args, **kwargs):
        nums = _argnums(argnums, len(args))
        primals = [args[i] for i in nums]
        partial = _partial_in(fun, args, kwargs, nums)
        leaves = [to_array(x) for p in primals for x in tree_flatten(p)[0]]
        for x in leaves:
            if not holomorphic and x.dtype.kind != "f":
                raise TypeError(f"jacfwd requires real-valued inputs (input dtype that is a sub-dtype of np.floating), "
                                f"but got {x.dtype.name}. For holomorphic differentiation, pass holomorphic=True. For "
                                "differentiation of non-holomorphic functions involving complex inputs or integer "
                                "inputs, use jax.jvp directly.")
        total = sum(x.size for x in leaves)
        basis = _std_basis(leaves)

        def pushfwd(*tangent_leaves):
            return jvp(partial, tuple(primals), tuple(_unflatten_like(primals, tangent_leaves)), has_aux=has_aux)
        if total:
            out_axes = (None, -1, None) if has_aux else (None, -1)
            result = batched_function(pushfwd, out_axes=out_axes)(*basis)
            out, tangents = result[0], result[1]
        else:                                         # no input elements: evaluate once for the shapes
            result = partial(*primals)
            out = result[0] if has_aux else result
            tangents = tree_map(lambda o: jnp.zeros(to_array(o).shape + (0,), to_array(o).dtype), out)
        out_leaves, out_tree = tree_flatten(out)
        per_out = []
        for o, t in zip(out_leaves, tree_flatten(tangents)[0]):
            o, t = to_array(o), to_array(t)           # t: o.shape + (total,)
            per_primal, at = [], 0
            for p in primals:
                p_leaves, p_tree = tree_flatten(p)
                blocks = []
                for x in p_leaves:
                    x = to_array(x)
                    blocks.append(jnp.reshape(t[..., at:at + x.size], o.shape + x.shape))
                    at += x.size
                per_primal.append(tree_unflatten(p_tree, blocks))
            per_out.append(per_primal[0] if isinstance(argnums, int) else tuple(per_primal))
        jac = tree_unflatten(out_tree, per_out)
        return (jac, result[2] if total else result[1]) if has_aux else jac
    return jacfun


def _unflatten_like(primals, leaves):
    it = iter(leaves)
    out = []
    for p in primals:
        ls, tree = tree_flatten(p)
        out.append(tree_unflatten(tree, [next(it) for _ in ls]))
    return out


def _partial_in(fun, args, kwargs, nums):
    def partial(*diff):
        full = list(args)
        for i, d in zip(nums, diff):
            full[i] = d
        return fun(*full, **kwargs)
    return partial


def hessian(fun, argnums=0, has_aux=False, holomorphic=False):
    _refuse_holomorphic(holomorphic, "jax.hessian")
    return jacfwd(jacrev(fun, argnums, has_aux), argnums, has_aux)


# ---- custom derivatives ---------------------------------------------------------------------------

class _Rule:
    """The autograd Function a custom_vjp / custom_jvp call becomes (node name: the function's)."""
    __name__ = "custom"


def _attach(name: str, args: list, out: Array, backward) -> Array:
    """`out` (computed without recording) gets one autograd node whose backward is `backward(g)`."""
    if not (autograd.is_grad_enabled() and any(isinstance(a, Tensor) and a._requires_grad for a in args)):
        return out
    cls = type(f"{name}", (_Rule,), {"backward": staticmethod(lambda ctx, g: backward(g))})
    ctx = FunctionCtx(tuple(isinstance(a, Tensor) and a._requires_grad for a in args))
    fresh = Tensor(out.array)
    attach_custom_node(cls, ctx, tuple(args), fresh)
    trace = tracing.active()
    if trace is not None and id(out) in trace.values:
        # inside a trace the fresh tensor is the value the rule's forward computed there, not a new input
        # (it would be read as one, with this call's value: a vmap's first example, a jit's first call)
        trace.bind(fresh, trace.values[id(out)])
    return set_weak(as_array(fresh), is_weak(out))


class custom_vjp:
    """`@jax.custom_vjp` with `f.defvjp(fwd, bwd)`: fwd(*args) -> (out, residuals); bwd(res, g) -> grads."""

    def __init__(self, fun, nondiff_argnums=()):
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.fwd = self.bwd = None
        self._in_fwd = 0           # fwd running: a call of f inside it (f_fwd returns f(x), res) is the primal
        functools.update_wrapper(self, fun)

    def defvjp(self, fwd, bwd, symbolic_zeros=False):
        self.fwd, self.bwd = fwd, bwd

    def __call__(self, *args, **kwargs):
        if self.fwd is None:
            raise AttributeError(f"No VJP defined for custom_vjp function {self.__name__} using defvjp.")
        interp = forward.carrying(tree_flatten(args)[0])
        if interp is not None:
            # JAX runs fwd (its f inside it the primal) before it finds it has no forward-mode rule
            self._in_fwd += 1
            try:
                with interp.suspended(), autograd.no_grad():
                    self.fwd(*args, **kwargs)
            finally:
                self._in_fwd -= 1
            raise TypeError("can't apply forward-mode autodiff (jvp) to a custom_vjp function.")
        if self._in_fwd or not any(isinstance(a, Tensor) and a._requires_grad for a in tree_flatten(args)[0]):
            return self.fun(*args, **kwargs)
        # the differentiated arguments may be pytrees (fixed_point's packed (a, x_star, x_star_bar)): their leaves
        arrays = [tree_map(to_array, a) if i not in self.nondiff_argnums else a for i, a in enumerate(args)]
        self._in_fwd += 1
        try:
            with autograd.no_grad():
                out, res = self.fwd(*arrays, **kwargs)
        finally:
            self._in_fwd -= 1
        out_leaves, out_tree = tree_flatten(out)
        outs = [to_array(o) for o in out_leaves]
        diff = [i for i in range(len(args)) if i not in self.nondiff_argnums]
        per_arg = [tree_flatten(arrays[i])[0] for i in diff]
        tensors = [leaf for leaves in per_arg for leaf in leaves]

        def backward(g_tree):
            with autograd.enable_grad() if _nested() else autograd.no_grad():
                nondiff = [args[i] for i in self.nondiff_argnums]
                grads = self.bwd(*nondiff, res, g_tree)
            if not isinstance(grads, tuple):
                raise TypeError(f"Custom VJP bwd rule must produce a tuple of length equal to the number of "
                                f"arguments to the primal function, but got bwd output {grads!r}")
            if len(grads) != len(diff):
                raise TypeError(f"Custom VJP bwd rule must produce an output with the same container (pytree) "
                                f"structure as the args tuple of the primal function, and in particular must produce "
                                f"a tuple of length equal to the number of arguments to the primal function, but got "
                                f"bwd output structure with {len(grads)} entries for {len(diff)} arguments.")
            flat = []
            for grad_tree, leaves in zip(grads, per_arg):
                got = [None] * len(leaves) if grad_tree is None else tree_flatten(grad_tree)[0]
                flat += [None if v is None else to_array(v) for v in got]
            return tuple(flat)

        def backward_of(j):
            """The output leaf j's backward: bwd of a cotangent that is g there and zero elsewhere (bwd is linear)."""
            def run(g):
                cts = [as_array(g) if k == j else jnp.zeros_like(o) for k, o in enumerate(outs)]
                return backward(tree_unflatten(out_tree, cts))
            return run
        name = getattr(self.fun, "__name__", "custom_vjp")
        return tree_unflatten(out_tree, [_attach(name, tensors, o, backward_of(j)) for j, o in enumerate(outs)])


class custom_jvp:
    """`@jax.custom_jvp` with `f.defjvp(rule)`: rule(primals, tangents) -> (out, tangent_out). Reverse
    mode transposes the rule: its tangent output is linear in the tangents, so the vjp of g is
    d⟨tangent_out(t), g⟩/dt."""

    def __init__(self, fun, nondiff_argnums=()):
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.jvp_rule = None
        self._in_rule = 0          # the rule running for a reverse-mode differentiation (see __call__)
        functools.update_wrapper(self, fun)

    def defjvp(self, jvp, symbolic_zeros=False):
        self.jvp_rule = jvp
        return jvp

    def defjvps(self, *jvps):
        def rule(primals, tangents):
            out = self.fun(*primals)
            total = None
            for f, t in zip(jvps, tangents):
                if f is None:
                    continue
                term = f(t, out, *primals)
                total = term if total is None else jnp.add(total, term)
            return out, total if total is not None else jnp.zeros_like(out)
        self.jvp_rule = rule

    def _forward(self, interp, args, kwargs):
        """Under jax.jvp: the rule gives the output and its tangent (the function's own ops get none)."""
        diff = [i for i in range(len(args)) if i not in self.nondiff_argnums]
        primals = tuple(args[i] for i in diff)
        tangents = tuple(tree_map(lambda x: _tangent_or_zero(interp, x), p) for p in primals)
        nondiff = [args[i] for i in self.nondiff_argnums]
        with interp.suspended():
            out, t_out = self.jvp_rule(*nondiff, primals, tangents)
        for o, t in zip(tree_flatten(out)[0], tree_flatten(t_out)[0]):
            if isinstance(o, Tensor):
                interp.set(o, to_array(t))
        return out

    def __call__(self, *args, **kwargs):
        if self.jvp_rule is None:
            raise AttributeError(f"No JVP defined for custom_jvp function {self.__name__} using defjvp.")
        interp = forward.carrying(tree_flatten(args)[0])
        if interp is not None:
            return self._forward(interp, args, kwargs)
        # each differentiation running applies the rule once: a call of f inside the rule (f_jvp returns
        # f(x), ...) is differentiated by the ones around it only (grad of grad: the rule, inside it the
        # rule again, inside that f itself), as JAX's levels do
        if self._in_rule >= max(_LEVEL[0], 1) or \
                not any(isinstance(a, Tensor) and a._requires_grad for a in tree_flatten(args)[0]):
            return self.fun(*args, **kwargs)
        diff = [i for i in range(len(args)) if i not in self.nondiff_argnums]
        trees = [tree_map(to_array, args[i]) for i in diff]           # (an argument may be a pytree: a Point)
        arrays = [leaf for t in trees for leaf in tree_flatten(t)[0]]
        nondiff = [args[i] for i in self.nondiff_argnums]

        def run_rule():
            """The rule on zero tangents the backward differentiates its tangent output by (linear in them:
            the vjp of g is the gradient of <tangent_out, g>): (out, tangent out leaves, tangent leaves).
            Nested in another differentiation or a trace, the primals keep their graph (a second derivative
            goes through the rule's use of them)."""
            nested = _nested()
            primals = [tree_map(lambda a: a if nested else Array(a.array), t) for t in trees]
            tangents = [tree_map(lambda a: set_weak(as_array(Tensor(np.zeros(a.array.shape, a.array.dtype),
                                                                    requires_grad=True)), False), t) for t in trees]
            self._in_rule += 1
            try:
                with autograd.enable_grad():
                    out, t_out = self.jvp_rule(*nondiff, tuple(primals), tuple(tangents))
            finally:
                self._in_rule -= 1
            return out, [to_array(t) for t in tree_flatten(t_out)[0]], [x for t in tangents for x in tree_flatten(t)[0]]

        # JAX's reverse mode is its forward mode transposed: the rule runs once, now, and f itself is not
        # called (only where the rule calls it). Under a jax.jvp too (forward over reverse: hessian), the
        # rule runs in each backward instead, where the jvp sees its ops (now it is inside the jvp's
        # own use of the rule, where its ops carry no tangents), and f gives the value now.
        ruled = None
        if tracing.FORWARD:
            with autograd.no_grad():
                out = self.fun(*args, **kwargs)
        else:
            out, *ruled = run_rule()
        out_leaves, out_tree = tree_flatten(out)
        outs = [to_array(o) for o in out_leaves]      # (their values: _attach gives each its node)

        def backward_of(j):
            """Output leaf j's backward: the rule's tangent of that leaf, transposed."""
            def backward(g):
                t_leaves, tangent_leaves = ruled if ruled is not None else run_rule()[1:]
                t_leaf = t_leaves[j]
                if not t_leaf._requires_grad:
                    return tuple(None for _ in arrays)
                with autograd.enable_grad():
                    found = run_backward([t_leaf], [g if _nested() else np.asarray(g.array if isinstance(g, Tensor) else g)],
                                         retain_graph=True, create_graph=_nested(), inputs=tangent_leaves,
                                         allow_unused=True)
                return tuple(None if f is None else to_array(f) for f in found)
            return backward
        name = getattr(self.fun, "__name__", "custom_jvp")
        return tree_unflatten(out_tree, [_attach(name, arrays, o, backward_of(j)) for j, o in enumerate(outs)])


def _tangent_or_zero(interp, x):
    t = interp.tangent(x) if isinstance(x, Tensor) else None
    return t if t is not None else jnp.zeros_like(x)


def stop_gradient(x):
    def one(leaf):
        a = to_array(leaf)
        return set_weak(as_array(apply("stop_gradient", a)), is_weak(a))
    return tree_map(one, x)


def checkpoint(fun, **kwargs):
    """`jax.checkpoint` / `jax.remat`: the same values (Dagscope keeps every intermediate)."""
    return fun


remat = checkpoint
