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

import string

import numpy as np

from engine.ir.graph import CALL, COND, CONSTANT, OUTPUT, PLACEHOLDER, WHILE, Graph, Value

WIDTH = 80
_SHORT = {"float32": "f32", "float16": "f16", "float64": "f64", "int32": "i32", "int64": "i64", "int8": "i8",
          "int16": "i16", "uint8": "u8", "uint32": "u32", "bool": "bool", "complex64": "c64", "bfloat16": "bf16"}
_SAME = {"add", "sub", "mul", "div", "neg", "exp", "log", "sin", "cos", "tanh", "sqrt", "abs", "sign", "floor",
         "ceil", "pow", "erf", "gt", "lt", "ge", "le", "eq", "ne", "rem", "stop_gradient"}
_RENAMED = {"maximum": "max", "minimum": "min", "sigmoid": "logistic", "remainder": "rem", "bitwise_and": "and",
            "bitwise_or": "or", "bitwise_xor": "xor", "bitwise_not": "not", "isnan": "ne", "clone": None}


# ops of the engine's backward that JAX has no primitive for: printed as JAX's equations (_Printer.backward_op)
_BACKWARD_OPS = {"tanh_backward", "sigmoid_backward", "threshold_backward", "masked_fill", "sum_to_size",
                 "slice_backward", "select_backward", "index_backward", "gather_backward"}


JIT_CALLS = "jit calls"         # the `shown` entry listing the jitted functions called inside the trace
                               # ({name, inputs, outputs, nodes}): each printed as a `jit` equation
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
                 operands: int | None = None, shown: dict | None = None, binders: list | None = None,
                 results: int | None = None, skip: set | None = None, lifted: set | None = None):
        self.graph = graph
        self.lifted = lifted or set()  # ids of array constants printed as binders (a cond branch's, hoisted)
        # nodes not printed: a switch's bookkeeping (its chain's comparisons, each level's index - 1)
        self.skip = set(skip or ())
        for n in graph.nodes:
            if n.kind == COND and "switch" in n.attrs and n.inputs[0].producer is not None:
                self.skip.add(n.inputs[0].producer.id)
        self.binders = binders         # the placeholders printed as the jaxpr's binders, in order (default all)
        self.results = results         # how many of the graph's outputs the jaxpr returns (default all)
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
        # values nothing reads print as JAX's `_` (the forward value of a loss under jax.grad), without a name
        self.used = {v.id for n in graph.nodes for v in n.inputs}
        # a scalar reshaped to (1, ..., 1) only to be broadcast (a sum's vjp): JAX's one broadcast_in_dim
        self.scalar_alias: set = set()
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

    def define(self, v: Value, binder: bool = False) -> str:
        if v.id in getattr(self, "preset", ()):         # a jit call's output: named by the equation outside
            return f"{self.names[v.id]}:{spec_text(v.shape, self.index_dtype.get(v.id, v.dtype))}"
        if v.id not in self.used and not binder:
            self.names[v.id] = "_"
            return f"_:{spec_text(v.shape, self.index_dtype.get(v.id, v.dtype))}"
        text = self.fresh(v.shape, self.index_dtype.get(v.id, v.dtype))
        self.names[v.id] = text.split(":")[0]
        return text

    def arg(self, v: Value) -> str:
        if v.id in getattr(self, "alias", ()):          # a literal passed to a jit call: its binder inside
            return self.alias[v.id]
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
        calls = [c for c in self.shown.get(JIT_CALLS, []) if c["nodes"]] if self.operands is None else []
        hoisted = self.hoist(calls)
        for n in g.nodes:
            if n.kind == CONSTANT and n.value.ndim > 0 and n.id not in self.lifted:
                self.constvars.append(self.define(n.out, binder=True))
            elif n.kind == COND:
                # JAX closes a branch over its array constants: constvars of this jaxpr, passed to the cond
                for c in _branch_constants(_cond_branches(n)):
                    self.constvars.append(self.define(c.out, binder=True))
        holders = g.placeholders
        if self.operands is not None:
            holders = holders[self.operands:] + holders[:self.operands]
        if self.binders is not None:
            holders = self.binders
        invars = [self.define(n.out, binder=True) for n in holders]
        self.body(g.nodes, _outermost(calls))
        outs = [self.arg(v) for v in g.outputs[:self.results]]
        return hoisted + self.layout(invars, outs)

    def body(self, nodes: list, calls: list) -> None:
        """The equations of `nodes`; those of a jitted function's call (`calls`) as one jit equation."""
        hidden = _scan_buffers(self.graph)
        member = {nid: c for c in calls for nid in c["nodes"]}
        printed: set = set()
        for n in nodes:
            if n.id in self.skip:
                continue
            call = member.get(n.id)
            if call is not None:
                if id(call) not in printed:
                    printed.add(id(call))
                    self.jit_call(call)
            elif n.kind == CALL and n.out.id not in hidden:
                self.call(n)
            elif n.kind in (COND, WHILE):
                self.control(n)

    # ---- jitted functions called inside the trace -------------------------------------------------
    def hoist(self, calls: list) -> str:
        """A function called more than once (same name and input types) has its jaxpr printed once, first
        (`let f = { ... } in`), and each call names it, as JAX prints it."""
        self.hoisted: dict = {}
        seen: dict = {}
        for c in calls:
            seen.setdefault(_call_key(c), []).append(c)
        text = ""
        for key, same in seen.items():
            if len(same) < 2:
                continue
            first = same[0]
            sub = _Printer(self.graph, self.weak, self.counter, self.width - len(f"let {first['name']} = "),
                           shown=self.shown)
            sub.hoisted = self.hoisted
            invars = [sub.define(v, binder=True) for v in first["inputs"]]
            inner = _inside(calls, first)
            sub.body([n for n in self.graph.nodes if n.id in set(first["nodes"])], _outermost(inner))
            body = sub.layout(invars, [sub.arg(v) for v in first["outputs"]])
            text += f"let {first['name']} = {body} in\n"
            self.hoisted[key] = first["name"]
        self.all_calls = calls
        return text

    def jit_call(self, call: dict) -> None:
        outs = " ".join(self.define(v) for v in call["outputs"])
        args = [self.arg(v) for v in call["inputs"]]
        name = self.hoisted.get(_call_key(call)) if hasattr(self, "hoisted") else None
        if name is not None:
            self.emit(outs, "jit", [("name", call["name"]), ("jaxpr", name)], args)
            return
        indent = 6 + len("jaxpr=")
        sub = _Printer(self.graph, self.weak, self.counter, WIDTH - indent, shown=self.shown)
        sub.names, sub.used, sub.hoisted = self.names, self.used, getattr(self, "hoisted", {})
        sub.preset = {v.id for v in call["outputs"]}
        invars, sub.alias = [], {}
        for v in call["inputs"]:
            known = self.names.get(v.id)
            if known:
                invars.append(f"{known}:{spec_text(v.shape, v.dtype)}")
            else:
                invars.append(sub.fresh(v.shape, v.dtype))
                sub.alias[v.id] = invars[-1].split(":")[0]
        inner = _inside(getattr(self, "all_calls", []), call)
        sub.body([n for n in self.graph.nodes if n.id in set(call["nodes"])], _outermost(inner))
        text = sub.layout(invars, [sub.arg(v) for v in call["outputs"]])
        first, *rest = text.split("\n")
        text = "\n".join([first] + ["      " + line for line in rest])
        self.emit(outs, "jit", [("name", call["name"]), ("jaxpr", text)], args, nested=True)

    def control(self, n) -> None:
        """A cond or while with its branches' / body's jaxprs nested, as JAX prints them: cond takes an
        int32 index (its predicate converted) and the branches false first."""
        if n.kind == WHILE and "scan" in n.attrs:
            self.scan(n)
            return
        if n.kind == COND and "switch" in n.attrs:
            self.switch(n)
            return
        args = [self.arg(v) for v in n.inputs]
        if n.kind == COND:
            pred = n.inputs[0]
            if pred.producer is not None and pred.producer.kind == CONSTANT:     # a concrete predicate
                args[0] = _literal(np.asarray(int(pred.producer.value), np.int32))
            elif np.dtype(pred.dtype) == np.bool_:
                text, name = self.temp((), np.int32)
                self.emit(text, "convert_element_type", [("new_dtype", "int32"), ("weak_type", False)], [args[0]])
                args[0] = name
            k = n.attrs.get("num_operands")
            if k is not None:                  # JAX passes the values a branch closes over first
                args = [args[0]] + args[1 + k:] + args[1:1 + k]
            self.cond(n, args[0], args[1:])
        elif "num_carry" in n.attrs:
            self.while_(n)
        else:
            outs = " ".join(self.define(v) for v in n.outputs)
            body = self.nested(n.subgraphs["body"], 6 + len("body_jaxpr="))
            test = self.nested(n.subgraphs["cond"], 6 + len("cond_jaxpr="))
            self.emit(outs, "while", [("body_jaxpr", body), ("body_nconsts", 0), ("cond_jaxpr", test),
                                      ("cond_nconsts", 0)], args, nested=True)

    def switch(self, n) -> None:
        """A lax.switch (control_flow._switch_chain: cond(index <= 0, b0, cond(index - 1 <= 0, b1, ...)), each
        level's graphs taking (index, operands)) as JAX's one cond of all its branches on the index."""
        k = n.attrs.get("num_operands")
        vals = [self.arg(v) for v in n.inputs[2:]]
        self.cond(n, self.arg(n.inputs[1]), vals if k is None else vals[k:] + vals[:k])

    def cond(self, n, index: str, operands: list) -> None:
        """A cond equation: its branches' jaxprs (each binding the branches' hoisted array constants, then
        the operands), its operands the index, those constants, the rest."""
        parts = _cond_branches(n)
        consts = [c for c in _branch_constants(parts) if c.out.id in self.names]     # (hoisted by run)
        lifted = {c.id for c in consts}
        outs = " ".join(self.define(v) for v in n.outputs)
        branches = [self.nested(sub, 8, binders=consts + holders, skip=skip, lifted=lifted)
                    for sub, holders, skip in parts]
        value = "(\n" + "".join(f"        {b}\n" for b in branches) + "      )"
        self.emit(outs, "cond", [("branches", value)], [index] + [self.names[c.out.id] for c in consts] + operands,
                  nested=True)

    def while_(self, n) -> None:
        """A lax.while_loop (control_flow.while_loop: its node carries the captured values after the loop's
        own) as JAX prints it: each function's captured values are its consts, passed before the carry
        (cond's, then body's), and only the carry is returned."""
        nc = n.attrs["num_carry"]
        consts = {}
        for part in ("cond", "body"):
            sub = n.subgraphs[part]
            used = {v.id for m in sub.nodes if m.kind != OUTPUT for v in m.inputs}   # (body passes them on)
            consts[part] = [k for k, p in enumerate(sub.placeholders[nc:], nc) if p.out.id in used]
        args = [self.arg(n.inputs[k]) for k in consts["cond"] + consts["body"]] + [self.arg(v) for v in n.inputs[:nc]]
        outs = " ".join(self.define(v) for v in n.outputs[:nc])
        texts = {}
        for part in ("body", "cond"):
            sub = n.subgraphs[part]
            binders = [sub.placeholders[k] for k in consts[part]] + sub.placeholders[:nc]
            texts[part] = self.nested(sub, 6 + len(f"{part}_jaxpr="), binders=binders,
                                      results=nc if part == "body" else None)
        self.emit(outs, "while", [("body_jaxpr", texts["body"]), ("body_nconsts", len(consts["body"])),
                                  ("cond_jaxpr", texts["cond"]), ("cond_nconsts", len(consts["cond"]))],
                  args, nested=True)

    def scan(self, n) -> None:
        """A scan (control_flow._emit_scan's loop over (i, carry, ys, xs, consts)) as JAX prints it: its
        outputs carry and ys, its operands consts, carry and xs, its jaxpr f's equations alone."""
        m = n.attrs["scan"]
        nc, ny, nx = m["num_carry"], m["num_ys"], m["num_xs"]
        ins = list(n.inputs)
        args = [self.arg(v) for v in ins[1 + nc + ny + nx:] + ins[1:1 + nc] + ins[1 + nc + ny:1 + nc + ny + nx]]
        outs = " ".join(self.define(v) for v in n.outputs[1:1 + nc + ny])
        indent = 6 + len("jaxpr=")
        text = _ScanBody(n.subgraphs["body"], self.weak, self.counter, WIDTH - indent, m).run()
        first, *rest = text.split("\n")
        body = "\n".join([first] + ["      " + line for line in rest])
        self.emit(outs, "scan", [("jaxpr", body), ("length", m["length"]), ("num_carry", nc),
                                 ("num_consts", m["num_consts"]), ("reverse", m["reverse"]), ("unroll", 1)],
                  args, nested=True)

    def _only_expanded(self, v: Value) -> bool:
        readers = [n for n in self.graph.nodes if any(u.id == v.id for u in n.inputs)]
        return bool(readers) and all(n.kind == CALL and n.op == "expand" for n in readers)

    def nested(self, graph: Graph, indent: int, operands: int | None = None, **order) -> str:
        """A sub-graph as a jaxpr inside this one's parameters, its later lines indented to sit there
        (`operands`: how many leading inputs are operands, printed after the captured ones)."""
        text = _Printer(graph, self.weak, self.counter, WIDTH - indent, operands, **order).run()
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
        if op in _BACKWARD_OPS:
            self.backward_op(n, args)
            return
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
        elif op == "reshape" and ins[0].ndim == 0 and all(d == 1 for d in out.shape) and self._only_expanded(out):
            self.names[out.id] = args[0]
            self.scalar_alias.add(out.id)
        elif op == "reshape":
            self.emit(self.define(out), "reshape", [("dimensions", None), ("new_sizes", _tuple(out.shape)),
                                                    ("sharding", None)], args)
        elif op == "permute":
            self.emit(self.define(out), "transpose", [("permutation", _tuple(attrs["dims"]))], args)
        elif op == "clamp" and attrs.get("min") is not None and attrs.get("max") is not None:
            self.emit(self.define(out), "clamp", [], [_literal(np.asarray(attrs["min"], out.dtype)), args[0],
                                                      _literal(np.asarray(attrs["max"], out.dtype))])
        elif op == "debug_print":
            self.emit("", "debug_print", _debug_print_params(attrs["fmt"], attrs["names"]), args)
        elif op == "triangular_solve":     # (the engine's solve: on the left, with a's lower triangle)
            self.emit(self.define(out), "triangular_solve", [
                ("conjugate_a", False), ("left_side", True), ("lower", True),
                ("transpose_a", bool(attrs.get("transpose", False))), ("unit_diagonal", False)], args)
        elif op == "debug_callback":       # (JAX masks the callback's address when it prints it)
            self.emit("", "debug_callback", [("callback", "<function debug_callback.<locals>._debug_callback."
                                                          "<locals>._flat_callback at 0xXXXXXXXXXXXX>"),
                                             ("effect", "Debug"), ("partitioned", False)], args)
        elif op == "flip":
            dims = tuple(sorted(d % ins[0].ndim for d in attrs["dims"]))
            self.emit(self.define(out), "rev", [("dimensions", _tuple(dims))], args)
        elif op == "transpose":
            perm = list(range(ins[0].ndim))
            a, b = attrs["dim0"] % ins[0].ndim, attrs["dim1"] % ins[0].ndim
            perm[a], perm[b] = perm[b], perm[a]
            self.emit(self.define(out), "transpose", [("permutation", _tuple(perm))], args)
        elif op == "expand":
            src = ins[0]
            lead = len(out.shape) - (0 if src.id in self.scalar_alias else src.ndim)
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

    def backward_op(self, n, args: list) -> None:
        """An op the engine's backward uses that JAX has no primitive for, as the equations JAX's own
        backward writes for it (tanh's and logistic's derivative from the output, a sum over broadcast
        axes, a select, a pad back into the input's shape, an indexed add)."""
        op, attrs, out, ins = n.op, n.attrs, n.out, list(n.inputs)
        one = f"1.0:{spec_text((), out.dtype)}"
        if op in ("tanh_backward", "sigmoid_backward"):
            g, y = args
            t1, n1 = self.temp(out.shape, out.dtype)
            t2, n2 = self.temp(out.shape, out.dtype)
            if op == "tanh_backward":           # g · (1 - y²)
                self.emit(t1, "mul", [], [y, y])
                self.emit(t2, "sub", [], [one, n1])
            else:                               # g · y(1 - y)
                self.emit(t1, "sub", [], [one, y])
                self.emit(t2, "mul", [], [y, n1])
            self.emit(self.define(out), "mul", [], [g, n2])
        elif op == "threshold_backward":      # g where out > threshold, else 0
            keep, name = self.temp(ins[1].shape, np.bool_)
            self.emit(keep, "gt", [], [args[1], _literal(np.asarray(attrs.get("threshold", 0.0), ins[1].dtype))])
            self.emit(self.define(out), "select_n", [], [name, f"0.0:{spec_text((), out.dtype)}", args[0]])
        elif op == "masked_fill":
            self.emit(self.define(out), "select_n", [], [args[1], args[0],
                                                         _literal(np.asarray(attrs["value"], out.dtype))])
        elif op == "sum_to_size":
            src, target = ins[0], tuple(out.shape)
            lead = src.ndim - len(target)
            axes = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(target) if s == 1 and src.shape[lead + i] != 1)
            kept = tuple(s for i, s in enumerate(src.shape) if i not in axes)
            if kept == target:
                self.emit(self.define(out), "reduce_sum", [("axes", _tuple(axes)), ("out_sharding", None)], args)
                return
            text, name = self.temp(kept, out.dtype)
            self.emit(text, "reduce_sum", [("axes", _tuple(axes)), ("out_sharding", None)], args)
            self.emit(self.define(out), "reshape", [("dimensions", None), ("new_sizes", _tuple(target)),
                                                    ("sharding", None)], [name])
        elif op in ("slice_backward", "select_backward"):
            shape, dim = tuple(attrs["shape"]), attrs["dim"] % len(attrs["shape"])
            g = args[0]
            if op == "select_backward":       # the selected axis back as size 1, then padded
                start, end, step = attrs["index"] % shape[dim], attrs["index"] % shape[dim] + 1, 1
                lifted = tuple(1 if i == dim else s for i, s in enumerate(shape))
                text, g = self.temp(lifted, out.dtype)
                self.emit(text, "broadcast_in_dim", [("broadcast_dimensions",
                                                      _tuple(i for i in range(len(shape)) if i != dim))], [args[0]])
            else:
                start, end, step = attrs["start"], attrs["end"], attrs.get("step", 1)
                start, end = max(0, min(start, shape[dim])), max(0, min(end, shape[dim]))
            count = len(range(start, end, step))
            config = [(0, 0, 0)] * len(shape)
            config[dim] = (start, shape[dim] - (start + (count - 1) * step + 1) if count else shape[dim] - start, step - 1)
            self.emit(self.define(out), "pad", [("padding_config", _tuple(tuple(c) for c in config))],
                      [g, f"0.0:{spec_text((), out.dtype)}"])
        elif op in ("index_backward", "gather_backward"):
            zeros, name = self.temp(out.shape, out.dtype)
            self.emit(zeros, "broadcast_in_dim", [], [f"0.0:{spec_text((), out.dtype)}"])
            self.emit(self.define(out), "scatter-add", [], [name] + args[1:] + args[:1])

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
    def head(self, invars: list) -> str:
        """`{ lambda consts; binders. let`, its binders filled onto lines as JAX's printer fills them: the
        next binder joins the line while the line ends before column 80, else starts one indented by 4."""
        line = f"{{ lambda {' '.join(self.constvars)};"
        lines = []
        for k, v in enumerate(invars):
            if k == 0 or len(line) < self.width:
                line += " " + v
            else:
                lines.append(line)
                line = "    " + v
        lines.append(line + ". let" if invars else line + " . let")
        return "\n".join(lines)

    def layout(self, invars: list, outs: list) -> str:
        head = self.head(invars)
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
                lines.append(f"    {outs_text + ' = ' if outs_text else ''}{prim}[")
                lines.extend(f"      {k}={v}" for k, v in params)
                lines.append(f"    ] {args}")      # (JAX's printer leaves the space when there are no operands)
        lines.append("  " + tail)
        return "\n".join(lines)

    @staticmethod
    def eqn_text(e) -> str:
        outs, prim, params, args, _ = e
        p = f"[{' '.join(f'{k}={v}' for k, v in params)}]" if params else ""
        return f"{outs + ' = ' if outs else ''}{prim}{p}{' ' + args if args else ''}"


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
                self.constvars.append(self.define(n.out, binder=True))
        invars = [self.define(p.out, binder=True) for p in consts + carry] + \
            [self.define(n.out, binder=True) for n in pre if n.op == "index"]
        for n in own:
            if n.kind == CALL:
                self.call(n)
            elif n.kind in (COND, WHILE):
                self.control(n)
        outs = [self.arg(v) for v in g.outputs[1:1 + nc]] + [self.arg(n.inputs[1]) for n in post if n.op == "index_put"]
        return self.layout(invars, outs)


def _cond_branches(n) -> list:
    """A cond node's branches in JAX's order, each (graph, its binders: the placeholders in JAX's order,
    the ids of nodes not printed): a two-way cond's else then then; a switch's chain
    (control_flow._switch_chain) unrolled, each level's index placeholder and `index - 1` left out."""
    k = n.attrs.get("num_operands")

    def ordered(holders):
        return holders if k is None else holders[k:] + holders[:k]
    if "switch" not in n.attrs:
        return [(n.subgraphs[b], ordered(n.subgraphs[b].placeholders), set()) for b in ("else", "then")]
    parts, level, count = [], n, n.attrs["switch"]
    for i in range(count - 1):
        then = level.subgraphs["then"]
        parts.append((then, ordered(then.placeholders[1:]), set()))
        rest = level.subgraphs["else"]
        if i < count - 2:
            level = [m for m in rest.nodes if m.kind != OUTPUT][-1]          # the next level's cond
        else:                                                               # the last branch, after index - 1
            first = [m for m in rest.nodes if m.kind == CALL][0]
            parts.append((rest, ordered(rest.placeholders[1:]), {first.id}))
    return parts


def _branch_constants(parts: list) -> list:
    return [m for sub, _, _ in parts for m in sub.nodes if m.kind == CONSTANT and m.value.ndim > 0]


def _call_key(call: dict) -> tuple:
    return (call["name"], tuple((tuple(v.shape), np.dtype(v.dtype).name) for v in call["inputs"]))


def _inside(calls: list, outer: dict) -> list:
    """The calls made inside `outer`'s (their nodes a strict subset of its)."""
    mine = set(outer["nodes"])
    return [c for c in calls if c is not outer and set(c["nodes"]) <= mine and len(c["nodes"]) < len(mine)]


def _outermost(calls: list) -> list:
    """The calls not made inside another of `calls`."""
    sets = [set(c["nodes"]) for c in calls]
    return [c for c, s in zip(calls, sets) if not any(s < other for other in sets)]


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


# numpy's default print options, as jax.debug.print's equation carries them
_NP_PRINTOPTIONS = ("(('edgeitems', 3), ('threshold', 1000), ('floatmode', 'maxprec'), ('precision', 8), "
                    "('suppress', False), ('linewidth', 75), ('nanstr', 'nan'), ('infstr', 'inf'), ('sign', '-'), "
                    "('formatter', None), ('legacy', False), ('override_repr', None))")


def _debug_print_params(fmt: str, names: tuple) -> list:
    """jax.debug.print's equation (JAX 0.10: an equation with no result), its parameters as JAX prints them."""
    positional = sum(1 for n in names if isinstance(n, int))
    keywords = sorted(n for n in names if isinstance(n, str))
    args = "(" + ", ".join(["*"] * positional) + ("," if positional == 1 else "") + ")"
    kwargs = "{" + ", ".join(f"{k!r}: *" for k in keywords) + "}"
    fields = any(name is not None for _, name, _, _ in string.Formatter().parse(fmt))
    return [("fmt", fmt), ("has_placeholders", fields), ("in_tree", f"PyTreeDef(({args}, {kwargs}))"),
            ("logging_record", None), ("np_printoptions", _NP_PRINTOPTIONS), ("ordered", False),
            ("partitioned", False), ("static_args", "()")]
