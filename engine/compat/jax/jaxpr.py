"""A traced IR graph printed as a jaxpr, in JAX's own text format (JAX 0.10's pretty-printer):

    { lambda ; a:f32[3]. let b:f32[3] = sin a in (b,) }

Variables are named a, b, ..., z, ba, bb ... in order of definition (constants first, as JAX's
constvars, then the inputs, then each equation's results); a scalar constant is a literal
(`2.0:f32[]`). Each registry op is written as the JAX primitive it is (`sum` is
`reduce_sum[axes=(0,) out_sharding=None]`, `matmul` is `dot_general[...]`, `sigmoid` is
`logistic`), with JAX's parameters; where JAX needs two equations for what the engine does in
one (a keepdims reduction, `x[0]`, a rank-lifting broadcast), two are printed. An op JAX has no
primitive for keeps the engine's name. The jaxpr fits on one line when it is at most 80
characters, as JAX prints it; otherwise one equation per line, and an equation whose parameters
make it too long has them one per line.
"""
from __future__ import annotations

import numpy as np

from engine.ir.graph import CALL, COND, CONSTANT, OUTPUT, PLACEHOLDER, WHILE, Graph, Value

WIDTH = 80
_SHORT = {"float32": "f32", "float16": "f16", "float64": "f64", "int32": "i32", "int64": "i64", "int8": "i8",
          "int16": "i16", "uint8": "u8", "uint32": "u32", "bool": "bool", "complex64": "c64", "bfloat16": "bf16"}
_SAME = {"add", "sub", "mul", "div", "neg", "exp", "log", "sin", "cos", "tanh", "sqrt", "abs", "sign", "floor",
         "ceil", "pow", "erf", "gt", "lt", "ge", "le", "eq", "ne", "rem", "stop_gradient"}
_RENAMED = {"maximum": "max", "minimum": "min", "sigmoid": "logistic", "remainder": "rem", "bitwise_and": "and",
            "bitwise_or": "or", "bitwise_xor": "xor", "bitwise_not": "not", "isnan": "ne", "clone": None}


NUMPY_INTS = "numpy ints"      # a `shown` entry (value id -> (NUMPY_INTS, None)): its axes were computed by vmap
RANK_LIFT = "rank lift"        # one for a reshape that appends size-1 dims (vmap's): JAX's broadcast_in_dim


def spec_text(shape, dtype) -> str:
    return f"{_SHORT.get(np.dtype(dtype).name, np.dtype(dtype).name)}[{','.join(str(s) for s in shape)}]"


def _name(n: int) -> str:
    """a .. z, then ba, bb ...: JAX's base-26 names."""
    out = ""
    while True:
        out = chr(ord("a") + n % 26) + out
        n //= 26
        if n == 0:
            return out


def _tuple(values) -> str:
    values = tuple(values)
    return "(" + ", ".join(str(v) for v in values) + ("," if len(values) == 1 else "") + ")"


def _literal(value: np.ndarray) -> str:
    v = value.item()
    text = repr(bool(v)) if value.dtype == np.bool_ else repr(v)
    return f"{text}:{spec_text((), value.dtype)}"


class _Printer:
    def __init__(self, graph: Graph, weak: dict, counter: list | None = None, width: int = WIDTH,
                 operands: int | None = None, shown: dict | None = None):
        self.graph = graph
        self.shown = shown or {}       # value id -> (primitive, literal array): a `mul` that is JAX's `div`
        self.operands = operands
        self.weak = weak              # value id -> weakly typed (for convert_element_type's weak_type)
        self.names: dict[str, str] = {}
        self.counter = counter if counter is not None else [0]     # shared with nested jaxprs
        self.width = width
        self.constvars: list[str] = []
        self.eqns: list[tuple] = []    # (outputs text, primitive, params [(k, v)], args text)
        self.numpy_ints = False         # the equation being printed has numpy-computed axes (NUMPY_INTS)
        self.index_dtype: dict = {}     # argmax/argmin/sum result id -> the dtype it is cast to (int64 in the engine)
        for n in graph.nodes:
            if n.kind == CALL and n.op == "to_dtype" and n.inputs[0].producer is not None and \
                    n.inputs[0].producer.op in ("argmax", "argmin", "sum", "prod") and \
                    np.dtype(n.inputs[0].dtype).kind in "iu":
                self.index_dtype[n.inputs[0].id] = np.dtype(n.out.dtype)

    def ints(self, values) -> str:
        """Axes as JAX prints them: a batching rule computes them with numpy (`(np.int64(1),)`)."""
        return _tuple(f"np.int64({v})" for v in values) if self.numpy_ints else _tuple(values)

    def fresh(self, shape, dtype) -> str:
        name = _name(self.counter[0])
        self.counter[0] += 1
        return f"{name}:{spec_text(shape, dtype)}"

    def define(self, v: Value) -> str:
        text = self.fresh(v.shape, self.index_dtype.get(v.id, v.dtype))
        self.names[v.id] = text.split(":")[0]
        return text

    def arg(self, v: Value) -> str:
        node = v.producer
        if node is not None and node.kind == CONSTANT and node.value.ndim == 0:
            return _literal(node.value)
        return self.names[v.id]

    def emit(self, outs: str, prim: str, params: list, args: list, nested: bool = False) -> None:
        self.eqns.append((outs, prim, params, " ".join(args), nested))

    def temp(self, shape, dtype) -> tuple[str, str]:
        text = self.fresh(shape, dtype)
        return text, text.split(":")[0]

    # ---- the graph ------------------------------------------------------------------------------
    def run(self) -> str:
        g = self.graph
        for n in g.nodes:
            if n.kind == CONSTANT and n.value.ndim > 0:
                self.constvars.append(self.define(n.out))
        holders = g.placeholders
        if self.operands is not None:
            holders = holders[self.operands:] + holders[:self.operands]
        invars = [self.define(n.out) for n in holders]
        hidden = _scan_buffers(g)
        for n in g.nodes:
            if n.kind == CALL and n.out.id not in hidden:
                self.call(n)
            elif n.kind in (COND, WHILE):
                self.control(n)
        outs = [self.arg(v) for v in g.outputs]
        return self.layout(invars, outs)

    def control(self, n) -> None:
        """A cond or while with its branches' / body's jaxprs nested, as JAX prints them: cond takes an
        int32 index (its predicate converted) and the branches false first."""
        if n.kind == WHILE and "scan" in n.attrs:
            self.scan(n)
            return
        args = [self.arg(v) for v in n.inputs]
        if n.kind == COND:
            pred = n.inputs[0]
            if np.dtype(pred.dtype) == np.bool_:
                text, name = self.temp((), np.int32)
                self.emit(text, "convert_element_type", [("new_dtype", "int32"), ("weak_type", False)], [args[0]])
                args[0] = name
            k = n.attrs.get("num_operands")
            if k is not None:                  # JAX passes the values a branch closes over first
                args = [args[0]] + args[1 + k:] + args[1:1 + k]
            outs = " ".join(self.define(v) for v in n.outputs)
            branches = [self.nested(n.subgraphs[b], 8, k) for b in ("else", "then")]
            value = "(\n" + "".join(f"        {b}\n" for b in branches) + "      )"
            self.emit(outs, "cond", [("branches", value)], args, nested=True)
        else:
            outs = " ".join(self.define(v) for v in n.outputs)
            body = self.nested(n.subgraphs["body"], 6 + len("body_jaxpr="))
            test = self.nested(n.subgraphs["cond"], 6 + len("cond_jaxpr="))
            self.emit(outs, "while", [("body_jaxpr", body), ("body_nconsts", 0), ("cond_jaxpr", test),
                                      ("cond_nconsts", 0)], args, nested=True)

    def scan(self, n) -> None:
        """A scan (control_flow._emit_scan's loop over (i, carry, ys, xs, consts)) as JAX prints it: its
        outputs carry and ys, its operands consts, carry and xs, its jaxpr f's equations alone."""
        m = n.attrs["scan"]
        nc, ny, nx = m["num_carry"], m["num_ys"], m["num_xs"]
        ins = list(n.inputs)
        args = [self.arg(v) for v in ins[1 + nc + ny + nx:] + ins[1:1 + nc] + ins[1 + nc + ny:1 + nc + ny + nx]]
        outs = " ".join(self.define(v) if self._used(v) else f"_:{spec_text(v.shape, v.dtype)}"
                        for v in n.outputs[1:1 + nc + ny])
        indent = 6 + len("jaxpr=")
        text = _ScanBody(n.subgraphs["body"], self.weak, self.counter, WIDTH - indent, m).run()
        first, *rest = text.split("\n")
        body = "\n".join([first] + ["      " + line for line in rest])
        self.emit(outs, "scan", [("jaxpr", body), ("length", m["length"]), ("num_carry", nc),
                                 ("num_consts", m["num_consts"]), ("reverse", m["reverse"]), ("unroll", 1)],
                  args, nested=True)

    def _used(self, v: Value) -> bool:
        return any(v.id == u.id for node in self.graph.nodes for u in node.inputs)

    def nested(self, graph: Graph, indent: int, operands: int | None = None) -> str:
        """A sub-graph as a jaxpr inside this one's parameters, its later lines indented to sit there
        (`operands`: how many leading inputs are operands, printed after the captured ones)."""
        text = _Printer(graph, self.weak, self.counter, WIDTH - indent, operands).run()
        first, *rest = text.split("\n")
        pad = " " * (indent if indent == 8 else 6)
        return "\n".join([first] + [pad + line for line in rest])

    def call(self, n) -> None:
        op, attrs, out = n.op, n.attrs, n.out
        ins = list(n.inputs)
        if op == "clone":                     # an alias (jax.grad's own copy of an input): no equation
            self.names[out.id] = self.arg(ins[0])
            return
        hint = self.shown.get(out.id, (None,))[0]
        self.numpy_ints = hint == NUMPY_INTS
        if hint == RANK_LIFT:                 # a reshape appending size-1 dims: JAX broadcasts
            dims = _tuple(range(ins[0].ndim))
            self.emit(self.define(out), "broadcast_in_dim", [("broadcast_dimensions", dims)], [self.arg(ins[0])])
            return
        if out.id in self.shown and not self.numpy_ints:
            prim, literal = self.shown[out.id]
            if literal is None:               # the same operands under JAX's name (a tangent sum: add_any)
                self.emit(self.define(out), prim, [], [self.arg(v) for v in ins])
                return
            self.emit(self.define(out), prim, [], [self.arg(ins[0]), _literal(literal)])
            return
        if op in _SAME or op in _RENAMED or op == "where":
            args = self._broadcast_operands(ins, out)
            if op == "where":                 # select_n(pred, on_false, on_true)
                self.emit(self.define(out), "select_n", [], [args[0], args[2], args[1]])
            elif op == "isnan":
                self.emit(self.define(out), "ne", [], [args[0], args[0]])
            else:
                self.emit(self.define(out), _RENAMED.get(op, op), [], args)
            return
        args = [self.arg(v) for v in ins]
        if op == "pow_scalar":
            e = attrs["exponent"]
            if float(e).is_integer():
                self.emit(self.define(out), "integer_pow", [("y", int(e))], args)
            else:
                self.emit(self.define(out), "pow", [], args + [_literal(np.asarray(e, out.dtype))])
        elif op == "to_dtype" and ins[0].id in self.index_dtype:
            self.names[out.id] = args[0]          # argmax's int64 result made int32: one argmax in JAX
        elif op == "to_dtype":
            weak = self.weak.get(out.id, False)
            self.emit(self.define(out), "convert_element_type",
                      [("new_dtype", np.dtype(out.dtype).name), ("weak_type", weak)], args)
        elif op in ("sum", "amax", "amin", "max", "min", "prod"):
            self.reduction(n, args)
        elif op in ("argmax", "argmin"):
            dim = attrs.get("dim")
            axes = (dim,) if dim is not None else tuple(range(ins[0].ndim))
            dtype = self.index_dtype.get(out.id, np.dtype(out.dtype))   # JAX's argmax makes its dtype directly
            text = self.fresh(out.shape, dtype)
            self.names[out.id] = text.split(":")[0]
            self.emit(text, op, [("axes", _tuple(axes)), ("index_dtype", np.dtype(dtype).name)], args)
        elif op == "matmul":
            self.matmul(ins, out, args)
        elif op == "reshape":
            self.emit(self.define(out), "reshape", [("dimensions", None), ("new_sizes", _tuple(out.shape)),
                                                    ("sharding", None)], args)
        elif op == "permute":
            self.emit(self.define(out), "transpose", [("permutation", _tuple(attrs["dims"]))], args)
        elif op == "transpose":
            perm = list(range(ins[0].ndim))
            a, b = attrs["dim0"] % ins[0].ndim, attrs["dim1"] % ins[0].ndim
            perm[a], perm[b] = perm[b], perm[a]
            self.emit(self.define(out), "transpose", [("permutation", _tuple(perm))], args)
        elif op == "expand":
            src = ins[0]
            lead = len(out.shape) - src.ndim
            dims = tuple(range(lead, len(out.shape)))
            self.emit(self.define(out), "broadcast_in_dim", [("broadcast_dimensions", _tuple(dims))]
                      if dims else [], args)
        elif op == "cat":
            self.emit(self.define(out), "concatenate", [("dimension", attrs["dim"])], args)
        elif op == "stack":
            self.emit(self.define(out), "stack", [("axis", attrs["dim"])], args)
        elif op in ("squeeze", "unsqueeze"):
            self.emit(self.define(out), "reshape", [("dimensions", None), ("new_sizes", _tuple(out.shape)),
                                                    ("sharding", None)], args)
        elif op == "select":
            self.index(ins[0], out, args, attrs["dim"], attrs["index"], attrs["index"] + 1, 1, squeeze=True)
        elif op == "slice":
            self.index(ins[0], out, args, attrs["dim"], attrs["start"], attrs["end"], attrs["step"], squeeze=False)
        elif op == "einsum" and _dot_general_numbers(attrs["equation"], len(ins)) is not None:
            self.emit(self.define(out), "dot_general", [
                ("dimension_numbers", _dot_general_numbers(attrs["equation"], len(ins))),
                ("preferred_element_type", np.dtype(out.dtype).name)], args)
        elif op == "einsum":
            self.emit(self.define(out), "einsum", [("equation", attrs["equation"])], args)
        elif op == "index_put":
            self.emit(self.define(out), "scatter-add" if attrs.get("accumulate") else "scatter", [], args)
        elif op == "index":
            self.emit(self.define(out), "gather", [], args)
        else:
            params = [(k, _tuple(v) if isinstance(v, (tuple, list)) else v) for k, v in attrs.items() if k != "fn"]
            self.emit(self.define(out), op, params, args)

    def _broadcast_operands(self, ins: list, out: Value) -> list:
        """JAX lifts a lower-rank array operand with broadcast_in_dim before an elementwise op."""
        args = []
        for v in ins:
            a = self.arg(v)
            if 0 < v.ndim < len(out.shape):
                lead = len(out.shape) - v.ndim
                text, name = self.temp((1,) * lead + tuple(v.shape), v.dtype)
                self.emit(text, "broadcast_in_dim",
                          [("broadcast_dimensions", self.ints(range(lead, len(out.shape))))], [a])
                a = name
            args.append(a)
        return args

    def reduction(self, n, args) -> None:
        op, attrs, out, src = n.op, n.attrs, n.out, n.inputs[0]
        dim = attrs.get("dim")
        axes = tuple(range(src.ndim)) if dim is None else ((dim,) if isinstance(dim, int) else tuple(dim))
        axes = tuple(sorted(a % max(src.ndim, 1) for a in axes))
        prim = {"sum": "reduce_sum", "amax": "reduce_max", "max": "reduce_max", "amin": "reduce_min",
                "min": "reduce_min", "prod": "reduce_prod"}[op]
        params = [("axes", self.ints(axes))] + ([("out_sharding", None)] if prim == "reduce_sum" else [])
        if not attrs.get("keepdim"):
            self.emit(self.define(out), prim, params, args)
            return
        kept = tuple(s for i, s in enumerate(src.shape) if i not in axes)
        text, name = self.temp(kept, out.dtype)
        self.emit(text, prim, params, args)
        dims = tuple(i for i in range(src.ndim) if i not in axes)
        self.emit(self.define(out), "broadcast_in_dim", [("broadcast_dimensions", _tuple(dims))] if dims else [],
                  [name])

    def matmul(self, ins, out, args) -> None:
        a, b = ins
        if a.ndim <= 2 and b.ndim <= 2:
            contract = (([a.ndim - 1], [0]), ([], []))
            dn = f"(([{a.ndim - 1}], [0]), ([], []))"
        else:
            batch = list(range(max(a.ndim, b.ndim) - 2))
            dn = f"(([{a.ndim - 1}], [{b.ndim - 2}]), ({batch}, {batch}))"
            contract = None
        del contract
        self.emit(self.define(out), "dot_general", [("dimension_numbers", dn),
                                                    ("preferred_element_type", np.dtype(out.dtype).name)], args)

    def index(self, src, out, args, dim, start, end, step, squeeze: bool) -> None:
        starts = [0] * src.ndim
        limits = list(src.shape)
        starts[dim], limits[dim] = start, end
        strides = None if step == 1 else _tuple([step if i == dim else 1 for i in range(src.ndim)])
        params = [("limit_indices", _tuple(limits)), ("start_indices", _tuple(starts)), ("strides", strides)]
        if not squeeze:
            self.emit(self.define(out), "slice", params, args)
            return
        if start == 0 and end == src.shape[dim] and step == 1:     # the whole axis: only the squeeze
            self.emit(self.define(out), "squeeze", [("dimensions", _tuple([dim]))], args)
            return
        sliced = tuple(limits[i] - starts[i] if i == dim else s for i, s in enumerate(src.shape))
        text, name = self.temp(sliced, out.dtype)
        self.emit(text, "slice", params, args)
        self.emit(self.define(out), "squeeze", [("dimensions", _tuple([dim]))], [name])

    # ---- layout ---------------------------------------------------------------------------------
    def layout(self, invars: list, outs: list) -> str:
        head = f"{{ lambda {' '.join(self.constvars)}; {' '.join(invars)}. let"
        tail = f"in {_tuple_text(outs)} }}"
        inline = [self.eqn_text(e) for e in self.eqns]
        one_line = f"{head} {'; '.join(inline)} {tail}"
        if len(one_line) <= self.width and "\n" not in one_line and not any(e[4] for e in self.eqns):
            return one_line
        lines = [head]
        for e, text in zip(self.eqns, inline):
            if (len(text) + 4 <= WIDTH or not e[2]) and not e[4]:
                lines.append("    " + text)
            else:
                outs_text, prim, params, args, _ = e
                lines.append(f"    {outs_text} = {prim}[")
                lines.extend(f"      {k}={v}" for k, v in params)
                lines.append(f"    ]{' ' + args if args else ''}")
        lines.append("  " + tail)
        return "\n".join(lines)

    @staticmethod
    def eqn_text(e) -> str:
        outs, prim, params, args, _ = e
        p = f"[{' '.join(f'{k}={v}' for k, v in params)}]" if params else ""
        return f"{outs} = {prim}{p}{' ' + args if args else ''}"


class _ScanBody(_Printer):
    """The body of a scan loop printed as the jaxpr of f: binders consts, carry, xs (the slices read at
    the counter); equations f's own (the counter, the slicing and the writes into ys left out)."""

    def __init__(self, graph: Graph, weak: dict, counter: list, width: int, meta: dict):
        super().__init__(graph, weak, counter, width)
        self.meta = meta

    def run(self) -> str:
        g, m = self.graph, self.meta
        nc, ny, nx = m["num_carry"], m["num_ys"], m["num_xs"]
        holders = g.placeholders
        carry, consts = holders[1:1 + nc], holders[1 + nc + ny + nx:]
        calls = [n for n in g.nodes if n.kind != OUTPUT][len(holders):]
        pre, own, post = calls[:m["pre"]], calls[m["pre"]:len(calls) - m["post"]], calls[len(calls) - m["post"]:]
        for n in own:
            if n.kind == CONSTANT and n.value.ndim > 0:
                self.constvars.append(self.define(n.out))
        invars = [self.define(p.out) for p in consts + carry] + [self.define(n.out) for n in pre if n.op == "index"]
        for n in own:
            if n.kind == CALL:
                self.call(n)
            elif n.kind in (COND, WHILE):
                self.control(n)
        outs = [self.arg(v) for v in g.outputs[1:1 + nc]] + [self.arg(n.inputs[1]) for n in post if n.op == "index_put"]
        return self.layout(invars, outs)


def _scan_buffers(graph: Graph) -> set:
    """Ids of the zero buffers a scan writes its ys into (not JAX's equations: its scan makes them)."""
    hidden = set()
    for n in graph.nodes:
        if n.kind == WHILE and "scan" in n.attrs:
            m = n.attrs["scan"]
            for v in n.inputs[1 + m["num_carry"]:1 + m["num_carry"] + m["num_ys"]]:
                hidden.add(v.id)
    return hidden


def _dot_general_numbers(equation: str, operands: int) -> str | None:
    """An einsum of two operands that is one dot_general (each letter a batch dim of both operands and
    the result, a contracted dim of both, or a free dim of one; the result ordered batch, lhs free,
    rhs free): its dimension_numbers as JAX prints them, else None."""
    if operands != 2 or "->" not in equation or "..." in equation:
        return None
    ins, out = equation.replace(" ", "").split("->")
    lhs, rhs = ins.split(",")
    if len(set(lhs)) != len(lhs) or len(set(rhs)) != len(rhs):
        return None
    batch = [c for c in lhs if c in rhs and c in out]
    contract = [c for c in lhs if c in rhs and c not in out]
    free_l = [c for c in lhs if c not in rhs]
    free_r = [c for c in rhs if c not in lhs]
    if any(c not in out for c in free_l + free_r) or [c for c in rhs if c in batch] != batch or \
            [c for c in rhs if c in contract] != contract or list(out) != batch + free_l + free_r:
        return None

    def where(sub, letters):
        return "[" + ", ".join(str(sub.index(c)) for c in letters) + "]"
    return f"(({where(lhs, contract)}, {where(rhs, contract)}), ({where(lhs, batch)}, {where(rhs, batch)}))"


def _tuple_text(names: list) -> str:
    return "(" + ", ".join(names) + ("," if len(names) == 1 else "") + ")"


def format_jaxpr(graph: Graph, weak: dict | None = None, shown: dict | None = None) -> str:
    """`graph` (a trace's IR) as JAX prints the jaxpr of the same function (`shown`: value id ->
    (primitive, literal) for an equation computed otherwise than JAX names it, tracing.Trace.shown_as)."""
    for n in graph.nodes:
        if n.kind not in (CALL, COND, WHILE, CONSTANT, PLACEHOLDER, OUTPUT):
            raise ValueError(f"cannot print a {n.kind} node as a jaxpr")
    return _Printer(graph, weak or {}, shown=shown).run()
