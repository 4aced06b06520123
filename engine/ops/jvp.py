"""Forward-mode (JVP) rules: the tangent of an op's output from the tangents of its inputs.

`JVP[op](F, tangents, *inputs, out, **attrs) -> tangent | None` (None: a zero tangent), keyed by op
name as `OPS` keys the vjp rules and written against the same builder `F`, so a rule runs on
Tensors (and an enclosing trace records its ops: a jvp's jaxpr) or on IR values. `tangents[i]` is
None where input i carries no tangent (an index, a mask, a constant); `zeros(x)` stands in for one
where a rule needs it. Three families share one rule each, from the op's vjp rule:
- LINEAR ops (movement, indexing, sums, cat, where ...): the tangent is the op itself applied to
  the tangents (the non-differentiable inputs, such as indices, kept);
- other elementwise ops: the Jacobian is diagonal, hence its own transpose, so the vjp rule with
  the tangent as the cotangent is the jvp (Σ over inputs; broadcasting happens in the rule's own
  products, and the backward walk's sum_to_size, which undoes it, is not applied);
- axis reductions (each output element reads its own set of input elements): the tangent is the
  vjp of ones (the partials, spread back over the input) times the tangent, summed over the same
  axes.
An op in none of these (a convolution, a sort, a loss) has no rule here: the caller transposes its
vjp rule (engine/compat/jax/forward.py says how).
"""
from __future__ import annotations

import engine.ops  # noqa: F401  (every family registered: the families below are derived from them)
from engine.ops.elementwise import dtype_name
from engine.ops.registry import ELEMENTWISE, OPS, REDUCE

JVP: dict = {}


def rule(*names):
    def register(fn):
        for n in names:
            JVP[n] = fn
        return fn
    return register


def zeros(F, x):
    """A zero tangent shaped as x (x * 0 keeps x's dtype and shape on every builder)."""
    return F.mul(x, 0.0)


# ---- linear ops: the op applied to the tangents -------------------------------------------------

def _linear(*positions, fill=None):
    """The op is linear in the inputs at `positions` (jointly); the others (indices, masks) are kept.
    `fill`: attrs replaced in the tangent's op (masked_fill's value is 0 for the tangent)."""
    def jvp(F, tangents, *inputs_and_out, _name, **attrs):
        inputs = inputs_and_out[:-1]
        if all(tangents[i] is None for i in positions if i < len(inputs)):
            return None
        args = []
        for i, x in enumerate(inputs):
            if i in positions:
                args.append(tangents[i] if tangents[i] is not None else zeros(F, x))
            else:
                args.append(x)
        return getattr(F, _name)(*args, **{**attrs, **(fill or {})})
    return jvp


def _register_linear(names, *positions, fill=None):
    for n in names:
        fn = _linear(*positions, fill=fill)
        JVP[n] = (lambda f, name: lambda F, t, *a, **k: f(F, t, *a, _name=name, **k))(fn, n)


_register_linear(("expand", "flip", "permute", "reshape", "roll", "select", "slice", "squeeze", "transpose",
                  "unsqueeze", "sum", "mean", "sum_to_size", "cumsum", "tril", "triu", "pad", "pad_backward",
                  "select_backward", "slice_backward", "clone", "to_dtype", "neg", "div_scalar", "index",
                  "index_backward", "gather", "gather_backward", "scatter_value", "dropout"), 0)
_register_linear(("index_put", "scatter", "scatter_add"), 0, 2)
JVP["index_put"] = (lambda f: lambda F, t, *a, **k: f(F, t, *a, _name="index_put", **k))(_linear(0, 1))
_register_linear(("embedding",), 1)
_register_linear(("masked_fill",), 0, fill={"value": 0.0})


def _join(name):
    def jvp(F, tangents, *inputs_and_out, **attrs):
        inputs = inputs_and_out[:-1]
        if all(t is None for t in tangents):
            return None
        return getattr(F, name)(*(t if t is not None else zeros(F, x) for t, x in zip(tangents, inputs)), **attrs)
    return jvp


JVP["cat"], JVP["stack"] = _join("cat"), _join("stack")


def _present(F, terms):
    terms = [t for t in terms if t is not None]
    if not terms:
        return None
    total = terms[0]
    add = getattr(F, "add_tangents", None) or F.add      # JAX's add_any, where the builder names it so
    for t in terms[1:]:
        total = add(total, t)
    return total


def _to_out(F, t, out):
    """A tangent given the output's shape (an operand broadcast by the op) and dtype."""
    if t is None:
        return None
    if tuple(t.shape) != tuple(out.shape):
        t = F.expand(t, shape=tuple(out.shape))
    if dtype_name(t) != dtype_name(out):
        t = F.to_dtype(t, dtype=dtype_name(out))
    return t


@rule("add")
def _add(F, tangents, a, b, out):
    ta, tb = tangents
    return _to_out(F, _present(F, [ta, tb]), out)


@rule("sub")
def _sub(F, tangents, a, b, out):
    ta, tb = tangents
    if ta is not None and tb is not None:
        return _to_out(F, F.sub(ta, tb), out)
    return _to_out(F, ta if ta is not None else F.neg(tb), out)


@rule("mul")
def _mul(F, tangents, a, b, out):
    ta, tb = tangents
    return _to_out(F, _present(F, [F.mul(ta, b) if ta is not None else None,
                                   F.mul(a, tb) if tb is not None else None]), out)


@rule("div")
def _div(F, tangents, a, b, out):
    ta, tb = tangents            # d(a/b) = ta/b - tb·out/b
    return _to_out(F, _present(F, [F.div(ta, b) if ta is not None else None,
                                   F.neg(F.div(F.mul(tb, out), b)) if tb is not None else None]), out)


@rule("where")
def _where(F, tangents, cond, a, b, out):
    _, ta, tb = tangents
    if ta is None and tb is None:
        return None
    return _to_out(F, F.where(cond, ta if ta is not None else zeros(F, a), tb if tb is not None else zeros(F, b)), out)


# ---- bilinear ops: one term per operand ---------------------------------------------------------

@rule("matmul", "einsum")
def _bilinear(F, tangents, *inputs_and_out, **attrs):
    inputs = inputs_and_out[:-1]
    op = "einsum" if "equation" in attrs else "matmul"
    terms = []
    for i, t in enumerate(tangents):
        if t is not None:
            args = list(inputs)
            args[i] = t
            terms.append(getattr(F, op)(*args, **attrs))
    return _present(F, terms)


@rule("addmm")
def _addmm(F, tangents, bias, a, b, out):
    tbias, ta, tb = tangents
    return _to_out(F, _present(F, [tbias, F.matmul(ta, b) if ta is not None else None,
                                   F.matmul(a, tb) if tb is not None else None]), out)


# ---- normalisations along a dim -------------------------------------------------------------------

@rule("softmax")
def _softmax(F, tangents, x, out, dim):
    (t,) = tangents              # out · (t - Σ out·t)
    return F.mul(out, F.sub(t, F.sum(F.mul(out, t), dim=dim, keepdim=True)))


@rule("log_softmax")
def _log_softmax(F, tangents, x, out, dim):
    (t,) = tangents              # t - Σ softmax·t
    return F.sub(t, F.sum(F.mul(F.exp(out), t), dim=dim, keepdim=True))


# ---- the families derived from the vjp rule --------------------------------------------------------

def _diagonal(name):
    opdef = OPS[name]

    def jvp(F, tangents, *inputs_and_out, **attrs):
        terms = []
        for i, t in enumerate(tangents):
            if t is None:
                continue
            grads = opdef.vjp(F, t, *inputs_and_out, **attrs)
            if grads[i] is not None:
                terms.append(grads[i])
        return _to_out(F, _present(F, terms), inputs_and_out[-1])
    return jvp


_AXIS_REDUCTIONS = ("amax", "amin", "max", "min", "logsumexp", "norm", "var", "std", "prod")


def _reduction(name):
    opdef = OPS[name]

    def jvp(F, tangents, x, out, **attrs):
        (t,) = tangents
        partials = opdef.vjp(F, F.add(zeros(F, out), 1.0), x, out, **attrs)[0]
        dim = attrs.get("dim")
        keep = attrs.get("keepdim", False)
        if dim is None:
            total = F.sum(F.mul(partials, t))
            return F.reshape(total, shape=tuple(out.shape)) if tuple(out.shape) != () else total
        return F.sum(F.mul(partials, t), dim=dim, keepdim=keep)
    return jvp


for _name, _op in OPS.items():
    if _name in JVP or not _op.differentiable:
        continue
    if _op.kind == ELEMENTWISE:
        JVP[_name] = _diagonal(_name)
    elif _name in _AXIS_REDUCTIONS and _op.kind in (REDUCE, "nn"):
        JVP[_name] = _reduction(_name)
