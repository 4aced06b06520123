"""A kernel module as plain data: what crosses the sandbox's boundary instead of C source.

A run's child may not compile anything: it sends its supervisor a description of the kernels
its engine lowered (`describe`: dims, dtypes, shapes, strides, the ops of each step with their
attrs and literals, all as JSON), and the supervisor rebuilds `Kernel` objects from it
(`rebuild`), checking every field strictly, renders the C itself with c_render and compiles it.
So no string a run chose reaches the compiler: kernel names are generated (`k0`, `k1`...),
variables are named by their position, the compiled source carries no comments (the source
shown in the Kernels tab, with the user's lines, is rendered in the run and never compiled),
attrs are only the numbers and words each op's rule reads, and every access of every loop stays
inside the buffers the description declares. The engine compiles through the same path outside
the sandbox too, so every codegen test also tests this one.
"""
from __future__ import annotations

import hashlib
import inspect
import json
import math
import re

import numpy as np

from engine.codegen.c_render import C_EXPR, C_REDUCE, C_TYPES, render_module
from engine.codegen.kernel import OUTPUT_ACCUMULATING, Arg, Kernel, Literal, Load, Reduction, Step, Store, \
    contiguous_strides
from engine.codegen.library_kernels import LIBRARY_OPS
from engine.ops.registry import OPS

VERSION = 1
MAX_KERNELS = 256
MAX_RANK = 32
MAX_ARGS = 64                     # inputs, outputs
MAX_LOADS = 256
MAX_STEPS = 1024
MAX_TOTAL_STEPS = 4096            # of a module: rendering costs the supervisor ~0.1 ms a step
MAX_EXTENT = 1 << 40              # elements of a loop nest or of a buffer's span; |stride|
MAX_SOURCE_BYTES = 4 << 20        # the rendered C of one module

# The attrs each rule of c_render / library_kernels reads, and what each may hold. Nothing else
# is sent or accepted: a word reaches C only as the choice it names, a number only as a literal.
NUMBER, INTEGER, FLAG = "number", "integer", "flag"
STEP_ATTRS: dict[str, dict] = {
    "div_scalar": {"divisor": NUMBER}, "pow_scalar": {"exponent": NUMBER},
    "leaky_relu": {"negative_slope": NUMBER}, "softplus": {"beta": NUMBER, "threshold": NUMBER},
    "clamp": {"min": NUMBER, "max": NUMBER}, "clamp_tensor": {"bounds_are": ("both", "min", "max")},
    "threshold_backward": {"threshold": NUMBER}, "masked_fill": {"value": NUMBER},
    "gelu": {"approximate": ("none", "tanh")}, "dropout": {"p": NUMBER},
    "hardtanh": {"min_val": NUMBER, "max_val": NUMBER},
    "elu": {"alpha": NUMBER, "scale": NUMBER, "input_scale": NUMBER}, "celu": {"alpha": NUMBER},
    "nan_to_num": {"nan": NUMBER, "posinf": NUMBER, "neginf": NUMBER},
}
REQUIRED_STEP_ATTRS = {"div_scalar": {"divisor"}, "pow_scalar": {"exponent"}, "masked_fill": {"value"},
                       "dropout": {"p"}}
REDUCTION_ATTRS: dict[str, dict] = {"norm": {"p": NUMBER}, "var": {"correction": NUMBER},
                                    "std": {"correction": NUMBER}}
LIBRARY_ATTRS: dict[str, dict] = {
    "nll_loss": {"ignore_index": INTEGER, "reduction": ("mean", "sum", "none")},
    "gather_backward": {"dim": INTEGER, "shape": "shape"},
    "native_layer_norm": {"normalized_ndim": INTEGER, "eps": NUMBER, "has_weight": FLAG, "has_bias": FLAG},
}
REQUIRED_LIBRARY_ATTRS = {"gather_backward": {"dim", "shape"}, "native_layer_norm": {"normalized_ndim"}}
_NON_FINITE = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}
_INT_RANGE = {name: (int(np.iinfo(name).min), int(np.iinfo(name).max))
              for name in C_TYPES if name not in ("float32", "float64", "bool")}


class InvalidDescription(ValueError):
    """The description is not one the engine's lowering produces; nothing was compiled."""


# ---- the run's side: Kernel objects -> plain data ------------------------------------------------

def describe(kernels: list[Kernel]) -> dict:
    return {"version": VERSION, "kernels": [_describe_kernel(k) for k in kernels]}


def canonical(description: dict) -> str:
    return json.dumps(description, sort_keys=True, separators=(",", ":"), allow_nan=False)


def kernel_key(text: str, flags) -> str:
    """Names a compiled module: the canonical description and the flags (both sides compute it)."""
    return hashlib.sha256(f"dagscope-kernels-v{VERSION}\0{text}\0{' '.join(flags)}".encode()).hexdigest()


def _number(value):
    value = value.item() if isinstance(value, np.generic) else value
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return value


def _attrs(attrs: dict, schema: dict) -> dict:
    out = {}
    for name, kind in schema.items():
        if name in attrs and attrs[name] is not None:
            value = attrs[name]
            out[name] = [int(v) for v in value] if kind == "shape" else \
                bool(value) if kind == FLAG else _number(value)
    return out


def _describe_kernel(k: Kernel) -> dict:
    loads = {ld.var: i for i, ld in enumerate(k.loads)}
    steps = {st.var: i for i, st in enumerate(k.steps)}

    def ref(r):
        if isinstance(r, Literal):
            return {"literal": _number(r.value), "dtype": np.dtype(r.dtype).name}
        return {"load": loads[r]} if r in loads else {"step": steps[r]}

    def arg(a: Arg, strides=True) -> dict:
        out = {"dtype": a.dtype.name, "shape": [int(s) for s in a.shape]}
        if strides:
            out["strides"] = [int(s) for s in (a.strides or contiguous_strides(a.shape))]
        return out

    d = {"dims": [int(s) for s in k.dims], "reduced": [bool(r) for r in k.reduced],
         "inputs": [arg(a) for a in k.inputs], "outputs": [arg(a, False) for a in k.outputs],
         "loads": [{"arg": ld.arg, "strides": [int(s) for s in ld.strides]} for ld in k.loads],
         "steps": [{"op": st.op, "args": [ref(r) for r in st.args],
                    "arg_dtypes": [np.dtype(t).name for t in st.arg_dtypes],
                    "attrs": _attrs(st.attrs, STEP_ATTRS.get(st.op, {})), "dtype": st.dtype.name}
                   for st in k.steps],
         "stores": [{"arg": so.arg, "ref": ref(so.ref), "strides": [int(s) for s in so.strides]}
                    for so in k.stores],
         "reduction": None, "accumulate_in_output": bool(k.accumulate_in_output), "library": None}
    red = k.reduction
    if red is not None:
        d["reduction"] = {"op": red.op, "ref": ref(red.ref), "in_dtype": red.in_dtype.name,
                          "dtype": red.dtype.name, "attrs": _attrs(red.attrs, REDUCTION_ATTRS.get(red.op, {})),
                          "count": int(red.count), "out_arg": red.out_arg,
                          "out_strides": [int(s) for s in red.out_strides]}
    if k.library:
        d["library"] = {"op": k.library, "attrs": _attrs(k.library_attrs, LIBRARY_ATTRS.get(k.library, {})),
                        "strides": [[int(s) for s in st] for st in k.library_strides]}
    return d


# ---- the trusted side: plain data -> checked Kernel objects -> C -------------------------------

def compiled_source(description) -> str:
    """The C the trusted side compiles for a description (InvalidDescription if it is not one
    the engine produces). Depends on nothing but the checked description."""
    return render_checked(rebuild(description))


def render_checked(kernels: list[Kernel]) -> str:
    """The C of kernels `rebuild` made, within the size the compiler is given."""
    source = render_module(kernels)
    if len(source) > MAX_SOURCE_BYTES:
        raise InvalidDescription(f"the kernels' source would be {len(source)} bytes (at most {MAX_SOURCE_BYTES})")
    return source


def rebuild(description) -> list[Kernel]:
    """Kernel objects named k0..kN from a description, every field checked."""
    d = _dict(description, "the description", {"version", "kernels"})
    if d["version"] != VERSION:
        raise InvalidDescription(f"unknown description version {d['version']!r}")
    kernels = _list(d["kernels"], "kernels", MAX_KERNELS)
    if not kernels:
        raise InvalidDescription("no kernels")
    steps = sum(len(k["steps"]) for k in kernels if isinstance(k, dict) and isinstance(k.get("steps"), list))
    if steps > MAX_TOTAL_STEPS:
        raise InvalidDescription(f"{steps} steps in one module (at most {MAX_TOTAL_STEPS})")
    return [_Checker(i).kernel(k) for i, k in enumerate(kernels)]


def _fail(where: str, what: str):
    raise InvalidDescription(f"{where}: {what}")


def _dict(value, where: str, keys: set, optional: set = frozenset()) -> dict:
    if not isinstance(value, dict):
        _fail(where, "not an object")
    unknown = set(value) - keys - optional
    if unknown:
        _fail(where, f"unknown field {sorted(map(str, unknown))[0][:40]!r}")
    missing = keys - set(value)
    if missing:
        _fail(where, f"missing field {sorted(missing)[0]!r}")
    return value


def _list(value, where: str, limit: int) -> list:
    if not isinstance(value, list):
        _fail(where, "not a list")
    if len(value) > limit:
        _fail(where, f"{len(value)} entries (at most {limit})")
    return value


def _int(value, where: str, lo: int, hi: int) -> int:
    if type(value) is not int or not lo <= value <= hi:
        _fail(where, f"not an integer in [{lo}, {hi}]")
    return value


def _dtype(value, where: str) -> np.dtype:
    if not isinstance(value, str) or value not in C_TYPES:
        _fail(where, "not a dtype with a C type")
    return np.dtype(value)


def _ints(value, where: str, n: int | None, lo: int, hi: int) -> tuple[int, ...]:
    items = _list(value, where, MAX_RANK)
    if n is not None and len(items) != n:
        _fail(where, f"{len(items)} entries where {n} were expected")
    return tuple(_int(v, where, lo, hi) for v in items)


def _value(value, where: str, kind, dtype: np.dtype | None = None):
    """An attr or literal: a finite/inf/nan number (of `dtype`'s range), one of the words of an
    enum, a flag, an integer, or a shape."""
    if isinstance(kind, tuple):
        if not isinstance(value, str) or value not in kind:
            _fail(where, f"not one of {', '.join(kind)}")
        return value
    if kind == FLAG:
        if type(value) is not bool:
            _fail(where, "not true or false")
        return value
    if kind == "shape":
        return _ints(value, where, 2, 0, MAX_EXTENT)
    if kind == INTEGER:
        return _int(value, where, -(1 << 63), (1 << 63) - 1)
    if isinstance(value, str) and value in _NON_FINITE:
        value = _NON_FINITE[value]
    elif type(value) not in (int, float, bool) or (type(value) is float and not math.isfinite(value)):
        _fail(where, "not a number")
    if dtype is not None and dtype.kind in "iub":
        if dtype.kind == "b":
            if value not in (0, 1):
                _fail(where, "not a bool")
        else:
            lo, hi = _INT_RANGE[dtype.name]
            if type(value) is float or not lo <= value <= hi:
                _fail(where, f"not a {dtype.name}")
    elif type(value) is int and not -(1 << 63) <= value < 1 << 63:
        _fail(where, "a number out of range")
    return value


def _attrs_checked(value, where: str, schema: dict, required: set = frozenset()) -> dict:
    attrs = _dict(value, where, set(required), set(schema))
    return {name: _value(v, f"{where}.{name}", schema[name]) for name, v in attrs.items()}


def _arity(rule) -> tuple[int, float]:
    params = list(inspect.signature(rule).parameters.values())[1:]
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        return len(params) - 1, math.inf
    return len(params), len(params)


_ARITY = {op: _arity(rule) for op, rule in C_EXPR.items()}


def _span(dims, strides) -> tuple[int, int] | None:
    """The lowest and highest element offset a loop nest reaches; None when it runs no iteration."""
    if any(d == 0 for d in dims):
        return None
    lo = sum((d - 1) * s for d, s in zip(dims, strides) if s < 0)
    hi = sum((d - 1) * s for d, s in zip(dims, strides) if s > 0)
    return lo, hi


def _numel(shape) -> int:
    return int(np.prod(shape, dtype=object)) if shape else 1


class _Checker:
    def __init__(self, index: int):
        self.index = index
        self.where = f"kernel {index}"

    def fail(self, what: str):
        _fail(self.where, what)

    def kernel(self, value) -> Kernel:
        d = _dict(value, self.where, {"dims", "reduced", "inputs", "outputs", "loads", "steps", "stores",
                                      "reduction", "accumulate_in_output", "library"})
        w = self.where
        dims = _ints(d["dims"], f"{w}.dims", None, 0, MAX_EXTENT)
        if _numel(dims) > MAX_EXTENT:
            self.fail(f"{_numel(dims)} loop iterations (at most {MAX_EXTENT})")
        reduced = _list(d["reduced"], f"{w}.reduced", MAX_RANK)
        if any(type(r) is not bool for r in reduced):
            self.fail("reduced holds something other than true/false")
        inputs = [self.arg(a, f"{w}.inputs[{i}]", True) for i, a in enumerate(_list(d["inputs"], f"{w}.inputs", MAX_ARGS))]
        outputs = [self.arg(a, f"{w}.outputs[{i}]", False) for i, a in enumerate(_list(d["outputs"], f"{w}.outputs", MAX_ARGS))]
        if not outputs:
            self.fail("no outputs")
        if type(d["accumulate_in_output"]) is not bool:
            self.fail("accumulate_in_output is not true/false")
        k = Kernel(f"k{self.index}", dims, tuple(reduced), inputs, outputs,
                   accumulate_in_output=d["accumulate_in_output"])
        if d["library"] is not None:
            self.library(k, d)
            return k
        if len(reduced) != len(dims):
            self.fail("reduced and dims differ in length")
        k.loads = [self.load(ld, i, k) for i, ld in enumerate(_list(d["loads"], f"{w}.loads", MAX_LOADS))]
        for i, st in enumerate(_list(d["steps"], f"{w}.steps", MAX_STEPS)):
            k.steps.append(self.step(st, i, k))
        k.stores = [self.store(so, i, k) for i, so in enumerate(_list(d["stores"], f"{w}.stores", MAX_ARGS))]
        if d["reduction"] is not None:
            k.reduction = self.reduction(d["reduction"], k)
        elif any(reduced) or k.accumulate_in_output:
            self.fail("reduced dims without a reduction")
        self.bounds(k)
        return k

    def arg(self, value, where: str, is_input: bool) -> Arg:
        a = _dict(value, where, {"dtype", "shape", "strides"} if is_input else {"dtype", "shape"})
        dtype = _dtype(a["dtype"], f"{where}.dtype")
        shape = _ints(a["shape"], f"{where}.shape", None, 0, MAX_EXTENT)
        if _numel(shape) > MAX_EXTENT:
            _fail(where, "a buffer too large")
        strides = _ints(a["strides"], f"{where}.strides", len(shape), -MAX_EXTENT, MAX_EXTENT) if is_input \
            else contiguous_strides(shape)
        span = _span(shape, strides)
        if span is not None and max(-span[0], span[1]) > MAX_EXTENT:
            _fail(where, "a buffer too large")
        return Arg(where.rsplit(".", 1)[1], dtype, shape, strides)

    def load(self, value, i: int, k: Kernel) -> Load:
        where = f"{self.where}.loads[{i}]"
        ld = _dict(value, where, {"arg", "strides"})
        arg = _int(ld["arg"], f"{where}.arg", 0, len(k.inputs) - 1)
        return Load(f"a{i}", arg, _ints(ld["strides"], f"{where}.strides", len(k.dims), -MAX_EXTENT, MAX_EXTENT))

    def ref(self, value, where: str, k: Kernel, n_steps: int):
        """(the C variable or Literal, its dtype) of an operand reference."""
        if isinstance(value, dict) and "literal" in value:
            r = _dict(value, where, {"literal", "dtype"})
            dtype = _dtype(r["dtype"], f"{where}.dtype")
            return Literal(_value(r["literal"], f"{where}.literal", NUMBER, dtype), dtype), dtype
        if isinstance(value, dict) and "load" in value:
            i = _int(_dict(value, where, {"load"})["load"], f"{where}.load", 0, len(k.loads) - 1)
            return k.loads[i].var, k.inputs[k.loads[i].arg].dtype
        i = _int(_dict(value, where, {"step"})["step"], f"{where}.step", 0, n_steps - 1)
        return k.steps[i].var, k.steps[i].dtype

    def step(self, value, i: int, k: Kernel) -> Step:
        where = f"{self.where}.steps[{i}]"
        st = _dict(value, where, {"op", "args", "arg_dtypes", "attrs", "dtype"})
        op = st["op"]
        if not isinstance(op, str) or op not in C_EXPR or op not in OPS:
            _fail(f"{where}.op", "not an elementwise op with a C rule")
        lo, hi = _ARITY[op]
        args = _list(st["args"], f"{where}.args", 8)
        if not lo <= len(args) <= hi:
            _fail(where, f"{op} takes {lo} operand(s), not {len(args)}")
        refs = [self.ref(a, f"{where}.args[{j}]", k, i) for j, a in enumerate(args)]
        arg_dtypes = [_dtype(t, f"{where}.arg_dtypes") for t in _list(st["arg_dtypes"], f"{where}.arg_dtypes", 8)]
        if len(arg_dtypes) != len(refs):
            _fail(where, "one dtype per operand")
        for (r, have), want in zip(refs, arg_dtypes):
            if not isinstance(r, Literal) and have != want:
                _fail(where, f"operand {r} is {have.name}, described as {want.name}")
        attrs = _attrs_checked(st["attrs"], f"{where}.attrs", STEP_ATTRS.get(op, {}), REQUIRED_STEP_ATTRS.get(op, set()))
        return Step(f"v{i}", "", op, [r for r, _ in refs], arg_dtypes, attrs, _dtype(st["dtype"], f"{where}.dtype"), "")

    def store(self, value, i: int, k: Kernel) -> Store:
        where = f"{self.where}.stores[{i}]"
        so = _dict(value, where, {"arg", "ref", "strides"})
        arg = _int(so["arg"], f"{where}.arg", 0, len(k.outputs) - 1)
        ref = _dict(so["ref"], f"{where}.ref", {"step"})
        var, _ = self.ref(ref, f"{where}.ref", k, len(k.steps))
        return Store(arg, var, _ints(so["strides"], f"{where}.strides", len(k.dims), -MAX_EXTENT, MAX_EXTENT))

    def reduction(self, value, k: Kernel) -> Reduction:
        where = f"{self.where}.reduction"
        r = _dict(value, where, {"op", "ref", "in_dtype", "dtype", "attrs", "count", "out_arg", "out_strides"})
        op = r["op"]
        if not isinstance(op, str) or op not in C_REDUCE or op not in OPS:
            _fail(f"{where}.op", "not a reduction with a C rule")
        ref, have = self.ref(r["ref"], f"{where}.ref", k, len(k.steps))
        in_dtype = _dtype(r["in_dtype"], f"{where}.in_dtype")
        if not isinstance(ref, Literal) and have != in_dtype:
            _fail(where, f"operand {ref} is {have.name}, described as {in_dtype.name}")
        count = _int(r["count"], f"{where}.count", 0, MAX_EXTENT)
        if count != _numel([s for s, red in zip(k.dims, k.reduced) if red]):
            _fail(where, "count is not the number of elements reduced")
        if k.accumulate_in_output and op not in OUTPUT_ACCUMULATING:
            _fail(where, f"{op} does not accumulate in its output")
        if not k.accumulate_in_output and list(k.reduced) != sorted(k.reduced):
            _fail(where, "reduced dims are not the innermost")
        if C_REDUCE[op] == "normalize" and in_dtype.kind != "f":
            _fail(where, f"{op} of {in_dtype.name}")
        return Reduction("", op, ref, in_dtype, _dtype(r["dtype"], f"{where}.dtype"),
                         _attrs_checked(r["attrs"], f"{where}.attrs", REDUCTION_ATTRS.get(op, {})), count,
                         _int(r["out_arg"], f"{where}.out_arg", 0, len(k.outputs) - 1),
                         _ints(r["out_strides"], f"{where}.out_strides", len(k.dims), -MAX_EXTENT, MAX_EXTENT), "")

    def bounds(self, k: Kernel) -> None:
        """Every element any loop of the kernel reads or writes lies inside its buffer."""
        def inside(span, arg: Arg, what: str):
            have = _span(arg.shape, arg.strides)
            if span is not None and (have is None or span[0] < have[0] or span[1] > have[1]):
                self.fail(f"{what} reaches outside its buffer")

        for i, ld in enumerate(k.loads):
            inside(_span(k.dims, ld.strides), k.inputs[ld.arg], f"load {i}")
        for i, so in enumerate(k.stores):
            inside(_span(k.dims, so.strides), k.outputs[so.arg], f"store {i}")
        red = k.reduction
        if red is None:
            return
        out = k.outputs[red.out_arg]
        kept = [not r for r in k.reduced]
        kept_dims = [s for s, keep in zip(k.dims, kept) if keep]
        inside(_span(k.dims, red.out_strides), out, "the reduction's output")
        inside(_span(kept_dims, [s for s, keep in zip(red.out_strides, kept) if keep]), out, "the reduction's output")
        if k.accumulate_in_output and _numel(kept_dims) > _numel(out.shape):
            self.fail("the reduction's output is smaller than its kept dims")

    # -- hand-lowered library kernels (library_kernels.py): each op's own shape rules --------------
    def library(self, k: Kernel, d: dict) -> None:
        where = f"{self.where}.library"
        lib = _dict(d["library"], where, {"op", "attrs", "strides"})
        op = lib["op"]
        if not isinstance(op, str) or op not in LIBRARY_OPS or op not in OPS:
            _fail(f"{where}.op", "not a library op with a C kernel")
        if d["loads"] or d["steps"] or d["stores"] or d["reduction"] is not None or d["reduced"] or \
                k.accumulate_in_output:
            self.fail("a library kernel has no loop nest of its own")
        k.library = op
        k.library_attrs = _attrs_checked(lib["attrs"], f"{where}.attrs", LIBRARY_ATTRS[op],
                                         REQUIRED_LIBRARY_ATTRS.get(op, set()))
        strides = _list(lib["strides"], f"{where}.strides", MAX_ARGS)
        if len(strides) != len(k.inputs) or any(tuple(s) != a.strides if isinstance(s, list) else True
                                                for s, a in zip(strides, k.inputs)):
            self.fail("library strides differ from its inputs'")
        k.library_strides = [a.strides for a in k.inputs]
        if not k.inputs or tuple(k.dims) != k.inputs[0].shape or len(k.outputs) != 1:
            self.fail("a library kernel's loop is its first input's shape, with one output")
        getattr(self, "_" + op)(k, k.library_attrs)

    def _nll_loss(self, k: Kernel, attrs: dict) -> None:
        if len(k.inputs) != 2:
            self.fail("nll_loss takes log-probabilities and targets")
        logp, target, out = k.inputs[0], k.inputs[1], k.outputs[0]
        if len(logp.shape) != 2 or logp.dtype.kind != "f" or target.dtype.kind not in "iu" or \
                target.shape != logp.shape[:1] or logp.shape[1] < 1:
            self.fail("nll_loss covers (N, C >= 1) float log-probabilities and N integer targets")
        want = logp.shape[:1] if attrs.get("reduction", "mean") == "none" else ()
        if out.shape != want or out.dtype != logp.dtype:
            self.fail("nll_loss output of the wrong shape or dtype")

    def _gather_backward(self, k: Kernel, attrs: dict) -> None:
        rows, cols = attrs["shape"]
        dim = attrs["dim"]
        if not -2 <= dim < 2 or len(k.inputs) != 2:
            self.fail("gather_backward covers 2-D results, a gradient and an index")
        row = (rows, 1) if dim % 2 == 1 else (1, cols)
        g, index, out = k.inputs[0], k.inputs[1], k.outputs[0]
        if g.shape != row or index.shape != row or index.dtype.kind not in "iu" or out.shape != (rows, cols):
            self.fail("gather_backward shapes do not fit one index per row")

    def _native_layer_norm(self, k: Kernel, attrs: dict) -> None:
        x, out = k.inputs[0], k.outputs[0]
        n = attrs["normalized_ndim"]
        want = 1 + bool(attrs.get("has_weight")) + bool(attrs.get("has_bias"))
        if len(k.inputs) != want or x.dtype.kind != "f" or not 1 <= n <= len(x.shape):
            self.fail("layer norm covers a float input normalized over its last dims, weight and bias")
        if any(a.dtype != x.dtype for a in k.inputs) or out.dtype != x.dtype or out.shape != x.shape:
            self.fail("layer norm of mixed dtypes or shapes")
        if any(a.shape != x.shape[len(x.shape) - n:] for a in k.inputs[1:]):
            self.fail("layer norm weight/bias of the wrong shape")
        if not all(all(s == 1 or st == c for s, st, c in zip(a.shape, a.strides, contiguous_strides(a.shape)))
                   for a in k.inputs):
            self.fail("layer norm reads row-major inputs")
        if "eps" in attrs and not math.isfinite(float(attrs["eps"])):
            self.fail("layer norm eps is not finite")
