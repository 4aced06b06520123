"""The AST-to-IR compiler shared by scripting (`torch.jit.script`) and `engine.function` (autograph).

Statements and control flow are interpreted from the function's AST; everything else runs as
ordinary Python on *shadow tensors*: real Tensors (ones of the right shape) that stand for IR
values. An op applied to shadows is recorded as a call node (the same observer tracing uses), so
the whole Tensor / functional / nn surface works without per-op code here. Control flow:

- a condition that is a Python value (a `bool` argument specialized, `self.training`, `x.dim()`)
  picks its branch now, as Python would;
- a condition that is a tensor becomes a `cond` node (both branches compiled into sub-graphs;
  variables assigned in them become its outputs; an early `return` takes the rest of the block
  into the branch that does not return), and `while` on a tensor becomes a `while_loop` node;
- `for i in range(n)` with a Python `n`, and `for m in self.layers`, are unrolled.

Anything else fails with `ScriptError` naming the line and the reason.
"""
from __future__ import annotations

import ast
import builtins
import inspect
import linecache
import operator
import textwrap

import numpy as np

from engine import nn_context, record
from engine.errors import UnsupportedError
from engine.ir.graph import Graph, Value
from engine.ops.registry import Spec

MAX_UNROLL = 1000            # longer Python loops are refused rather than exploding the graph
MAX_STATIC_WHILE = 10_000


class ScriptError(UnsupportedError):
    """A construct the compiler cannot turn into the IR; says where and why."""

    no_source = False     # True: the source could not be read (the code itself may be fine)

    def __init__(self, reason: str, line: int | None, construct: bool = True):
        # construct=False: the code is fine but failed on these shapes (e.g. compiled before any call)
        self.reason, self.line, self.construct = reason, line, construct
        super().__init__(f"line {line}: {reason}" if line is not None else reason)


class _Return(Exception):
    """Internal: a `return` statement reached while compiling a block."""

    def __init__(self, value):
        self.value = value


BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
          ast.MatMult: operator.matmul, ast.Pow: operator.pow, ast.FloorDiv: operator.floordiv,
          ast.Mod: operator.mod}
CMPOPS = {ast.Gt: operator.gt, ast.Lt: operator.lt, ast.GtE: operator.ge, ast.LtE: operator.le,
          ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Is: operator.is_, ast.IsNot: operator.is_not,
          ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b}


def is_tensor(x) -> bool:
    from engine.tensor import Tensor
    return isinstance(x, Tensor)


def parse_function(fn) -> tuple[ast.FunctionDef, int]:
    """The function's AST and the offset that turns its line numbers into the file's."""
    name = getattr(fn, "__name__", repr(fn))
    if name == "<lambda>":
        return _parse_lambda(fn), 0
    try:
        source = inspect.getsource(fn)
        tree = ast.parse(textwrap.dedent(source))
    except (OSError, TypeError, SyntaxError) as exc:
        raise _no_source(name, exc) from None
    node = tree.body[0]
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        raise _no_source(name, "not a function definition")
    return node, fn.__code__.co_firstlineno - 1


def _no_source(name, why) -> ScriptError:
    err = ScriptError(f"cannot read the source of {name!r} ({why})", None)
    err.no_source = True          # the code may be fine: capture can fall back to tracing it
    return err


def _parse_lambda(fn) -> ast.FunctionDef:
    """A lambda as `def <lambda>(args): return body`, found in its file by line and argument names."""
    code = fn.__code__
    try:
        tree = ast.parse("".join(linecache.getlines(code.co_filename)))
    except SyntaxError as exc:
        raise _no_source("<lambda>", exc) from None
    args = list(code.co_varnames[:code.co_argcount])
    for node in ast.walk(tree):
        if isinstance(node, ast.Lambda) and node.lineno == code.co_firstlineno \
                and [a.arg for a in node.args.args] == args:
            ret = ast.Return(node.body, lineno=node.lineno, col_offset=node.col_offset)
            return ast.FunctionDef(name="<lambda>", args=node.args, body=[ret], decorator_list=[], returns=None,
                                   type_comment=None, lineno=node.lineno, col_offset=node.col_offset)
    raise _no_source("<lambda>", "its line was not found")


def user_defined(fn) -> bool:
    """Code pasted by the user (compiled recursively, control flow included) vs library code (run)."""
    code = getattr(fn, "__code__", None)
    return code is not None and code.co_filename == record.USER_FILENAME


class _Ctx:
    """One graph being built (the function's, or a branch/loop body) and what it captured from outside."""

    def __init__(self, graph: Graph, parent: "_Ctx | None"):
        self.graph = graph
        self.parent = parent
        self.captures: dict[str, Value] = {}      # outer value id -> this graph's placeholder
        self.captured: list[Value] = []           # those outer values, in capture order


class Compiler:
    """Builds one Graph from a Python function's AST (see the module docstring)."""

    def __init__(self, graph: Graph):
        self.ctx = _Ctx(graph, None)
        self.sym: dict[int, Value] = {}           # id(shadow Tensor) -> the Value it stands for
        self.home: dict[str, Graph] = {}          # value id -> the graph that defines it
        self._alive: list = []
        self.line: int | None = None
        self.module_path: str | None = None
        # tf.function semantics: Python print runs while tracing (once per trace) and shows
        # symbolic tensors; torch.jit.script/compile refuse it instead.
        self.trace_time_print = False

    # ---- shadows and values ------------------------------------------------------------------
    def shadow(self, value: Value, tensor=None):
        """A Tensor standing for `value` (ones, unless a real tensor such as a parameter is given)."""
        from engine.tensor import Tensor
        if tensor is None:
            tensor = Tensor(np.ones(value.shape, dtype=value.dtype))
        self.sym[id(tensor)] = value
        self.home[value.id] = self.ctx.graph
        self._alive.append(tensor)
        return tensor

    def resolve(self, v: Value, ctx: _Ctx | None = None) -> Value:
        """`v` as seen from `ctx`'s graph: itself, or a placeholder capturing it from an outer graph."""
        ctx = ctx or self.ctx
        if self.home.get(v.id) is ctx.graph:
            return v
        if v.id in ctx.captures:
            return ctx.captures[v.id]
        if ctx.parent is None:
            raise ScriptError(f"internal: value {v.id} is not visible here", self.line)
        self.resolve(v, ctx.parent)
        inner = ctx.graph.placeholder(v.name or f"captured {v.id}", v.shape, v.dtype)
        self.home[inner.id] = ctx.graph
        ctx.captures[v.id] = inner
        ctx.captured.append(v)
        return inner

    def value_of(self, t) -> Value:
        v = self.sym.get(id(t))
        if v is None:           # a tensor made inside the function (torch.ones) or a global: a constant
            v = self.ctx.graph.constant(np.array(t.data, copy=True), name=t._name)
            self.sym[id(t)] = v
            self.home[v.id] = self.ctx.graph
            self._alive.append(t)
            return v
        return self.resolve(v)

    def symbolic(self, x):
        """How a shadow prints at trace time (as TensorFlow prints a symbolic tensor)."""
        v = self.sym.get(id(x)) if is_tensor(x) else None
        if v is None:
            return x
        return f'Tensor("{v.name or v.id}", shape={tuple(v.shape)}, dtype={np.dtype(v.dtype).name})'

    # ---- observers: ops on shadows become nodes --------------------------------------------------
    def observe(self, op, tensors, attrs, out) -> None:
        g = self.ctx.graph
        g.current_line = self.line
        g.current_module = nn_context.current_module_path() or self.module_path
        v = g.call(op.name, *(self.value_of(t) for t in tensors), **attrs)
        self.shadow(v, out)

    def on_value_read(self, tensor, kind: str) -> None:
        if id(tensor) in self.sym:
            what = "a Python boolean" if kind == "bool" else "a Python number"
            # construct=False: valid Python that needs a value only a call provides (e.g. range(n)
            # over an int argument while compiling before any call)
            raise ScriptError(f"converting a tensor to {what} here cannot be compiled: its value is only "
                              "known when the graph runs (use it in an `if`/`while` condition, or keep it a tensor)",
                              self.line, construct=False)

    def __enter__(self):
        from engine.tensor import OP_OBSERVERS, VALUE_READ_OBSERVERS
        OP_OBSERVERS.append(self.observe)
        VALUE_READ_OBSERVERS.append(self.on_value_read)
        self._err = np.seterr(all="ignore")       # shadows are ones: log/div warnings mean nothing
        return self

    def __exit__(self, *exc):
        from engine.tensor import OP_OBSERVERS, VALUE_READ_OBSERVERS
        OP_OBSERVERS.remove(self.observe)
        VALUE_READ_OBSERVERS.remove(self.on_value_read)
        np.seterr(**self._err)
        return False

    # ---- functions -----------------------------------------------------------------------------
    def call_function(self, fn, args: tuple, kwargs: dict, self_obj=None):
        """Compile a user function's body with these (shadow or Python) arguments; returns its result."""
        from engine.capture.scripting import ScriptFunction
        if isinstance(fn, ScriptFunction):
            fn = fn._fn
        tree, offset = parse_function(fn)
        sig = inspect.signature(fn)
        bound = sig.bind(*((self_obj,) if self_obj is not None else ()), *args, **kwargs)
        bound.apply_defaults()
        env = dict(bound.arguments)
        frame = _Frame(self, fn, offset, env)
        prev_line = self.line
        try:
            frame.block(tree.body)
        except _Return as ret:
            return ret.value
        finally:
            self.line = prev_line
        return None


def _assigned_names(stmts) -> list[str]:
    names: list[str] = []
    for s in stmts:
        for n in ast.walk(s):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id not in names:
                names.append(n.id)
    return names


def _contains(stmts, kinds) -> bool:
    return any(isinstance(n, kinds) for s in stmts for n in ast.walk(s))


def _always_returns(stmts) -> bool:
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, ast.Return):
        return True
    if isinstance(last, ast.If):
        return _always_returns(last.body) and _always_returns(last.orelse)
    return False


def _flatten(x) -> list:
    return [y for item in x for y in _flatten(item)] if isinstance(x, (tuple, list)) else [x]


class _Frame:
    """One function activation: its variables, globals and the file line offset."""

    def __init__(self, comp: Compiler, fn, offset: int, env: dict):
        self.c = comp
        self.fn = fn
        self.offset = offset
        self.env = env
        self.globals = fn.__globals__
        if fn.__closure__:
            for name, cell in zip(fn.__code__.co_freevars, fn.__closure__):
                try:
                    self.env.setdefault(name, cell.cell_contents)
                except ValueError:
                    pass

    def err(self, node, reason: str, construct: bool = True) -> ScriptError:
        line = node.lineno + self.offset if hasattr(node, "lineno") else self.c.line
        return ScriptError(reason, line, construct)

    def at(self, node) -> None:
        if hasattr(node, "lineno"):
            self.c.line = node.lineno + self.offset

    # ---- statements ------------------------------------------------------------------------------
    def block(self, stmts: list) -> None:
        for i, s in enumerate(stmts):
            self.at(s)
            if isinstance(s, ast.If):
                test = self.expr(s.test)
                self.at(s)
                if is_tensor(test):
                    self.tensor_if(s, test, stmts[i + 1:])
                else:
                    # the rest of the block goes with the branch, so a nested early return sees it
                    self.block((s.body if test else s.orelse) + stmts[i + 1:])
                return
            self.stmt(s)

    def stmt(self, s) -> None:
        if isinstance(s, ast.Expr):
            if isinstance(s.value, ast.Constant):      # docstring
                return
            self.expr(s.value)
        elif isinstance(s, (ast.Assign, ast.AnnAssign)):
            if s.value is None:
                return
            value = self.expr(s.value)
            for target in (s.targets if isinstance(s, ast.Assign) else [s.target]):
                self.assign(target, value)
        elif isinstance(s, ast.AugAssign):
            if not isinstance(s.target, ast.Name):
                raise self.err(s, "augmented assignment to an attribute or item mutates state; assign a new name")
            op = BINOPS.get(type(s.op))
            if op is None:
                raise self.err(s, f"operator {type(s.op).__name__} is not supported")
            self.env[s.target.id] = op(self.lookup(s.target), self.expr(s.value))
        elif isinstance(s, ast.Return):
            raise _Return(self.expr(s.value) if s.value is not None else None)
        elif isinstance(s, ast.For):
            self.for_loop(s)
        elif isinstance(s, ast.While):
            self.while_loop(s)
        elif isinstance(s, ast.Pass):
            return
        elif isinstance(s, ast.Assert):
            test = self.expr(s.test)
            if is_tensor(test):
                raise self.err(s, "assert on a tensor's value cannot be compiled")
            if not test:
                raise AssertionError(self.expr(s.msg) if s.msg else "")
        elif isinstance(s, ast.With):
            for item in s.items:
                self.expr(item.context_expr)        # e.g. torch.no_grad(): no effect on the graph
            self.block(s.body)
        else:
            raise self.err(s, f"`{type(s).__name__}` statements are not supported in a compiled function "
                              "(supported: assignment, if/else, for over range or a list, while, return)")

    def assign(self, target, value) -> None:
        if isinstance(target, ast.Name):
            self.env[target.id] = value
            v = self.c.sym.get(id(value)) if is_tensor(value) else None
            if v is not None and v.name is None:
                v.name = target.id          # names the placeholders that capture it in branches
        elif isinstance(target, (ast.Tuple, ast.List)):
            values = list(value)
            if len(values) != len(target.elts):
                raise self.err(target, f"cannot unpack {len(values)} values into {len(target.elts)} names")
            for t, v in zip(target.elts, values):
                self.assign(t, v)
        else:
            raise self.err(target, "assigning to an attribute or an item mutates state, which the graph "
                                   "cannot express; assign to a new variable instead")

    # ---- expressions -------------------------------------------------------------------------------
    def lookup(self, node: ast.Name):
        if node.id in self.env:
            return self.env[node.id]
        if node.id in self.globals:
            return self.globals[node.id]
        if hasattr(builtins, node.id):
            return getattr(builtins, node.id)
        raise self.err(node, f"name {node.id!r} is not defined")

    def expr(self, node):
        self.at(node)
        method = getattr(self, "e_" + type(node).__name__, None)
        if method is None:
            raise self.err(node, f"`{type(node).__name__}` expressions are not supported in a compiled function")
        return method(node)

    def e_Constant(self, node):
        return node.value

    def e_Name(self, node):
        return self.lookup(node)

    def e_Attribute(self, node):
        return getattr(self.expr(node.value), node.attr)

    def e_Subscript(self, node):
        return self.expr(node.value)[self.expr(node.slice)]

    def e_Slice(self, node):
        return slice(*(self.expr(x) if x is not None else None for x in (node.lower, node.upper, node.step)))

    def e_Tuple(self, node):
        return tuple(self.expr(e) for e in node.elts)

    def e_List(self, node):
        return [self.expr(e) for e in node.elts]

    def e_BinOp(self, node):
        op = BINOPS.get(type(node.op))
        if op is None:
            raise self.err(node, f"operator {type(node.op).__name__} is not supported")
        return op(self.expr(node.left), self.expr(node.right))

    def e_UnaryOp(self, node):
        x = self.expr(node.operand)
        if isinstance(node.op, ast.USub):
            return -x
        if isinstance(node.op, ast.UAdd):
            return +x
        if isinstance(node.op, ast.Not):
            return (x == 0) if is_tensor(x) else (not x)
        raise self.err(node, f"operator {type(node.op).__name__} is not supported")

    def e_Compare(self, node):
        left = self.expr(node.left)
        result = None
        for op, right_node in zip(node.ops, node.comparators):
            right = self.expr(right_node)
            part = CMPOPS[type(op)](left, right)
            result = part if result is None else self._and(result, part, node)
            left = right
        return result

    def _and(self, a, b, node):
        if is_tensor(a) or is_tensor(b):
            return self._bool_tensor(a, node) * self._bool_tensor(b, node)
        return a and b

    def _bool_tensor(self, x, node):
        if is_tensor(x):
            return x if x.data.dtype == np.bool_ else (x != 0)
        from engine.tensor import Tensor
        return Tensor(np.asarray(bool(x)))

    def e_BoolOp(self, node):
        values = node.values
        acc = self.expr(values[0])
        for v in values[1:]:
            if not is_tensor(acc):       # Python semantics: short-circuit on Python values
                if isinstance(node.op, ast.And) and not acc:
                    return acc
                if isinstance(node.op, ast.Or) and acc:
                    return acc
                acc = self.expr(v)
                continue
            other = self._bool_tensor(self.expr(v), node)
            acc = self._bool_tensor(acc, node)
            acc = acc * other if isinstance(node.op, ast.And) else self._or(acc, other)
        return acc

    def _or(self, a, b):
        # a or b on booleans = not (not a and not b), written with registered ops (eq, mul)
        return ((a == 0) * (b == 0)) == 0

    def e_IfExp(self, node):
        test = self.expr(node.test)
        if not is_tensor(test):
            return self.expr(node.body if test else node.orelse)
        outs = self.c_cond(test, [lambda: self.expr(node.body), lambda: self.expr(node.orelse)], node)
        return outs

    def e_Call(self, node):
        fn = self.expr(node.func)
        args = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                args.extend(self.expr(a.value))
            else:
                args.append(self.expr(a))
        kwargs = {}
        for k in node.keywords:
            if k.arg is None:
                kwargs.update(self.expr(k.value))
            else:
                kwargs[k.arg] = self.expr(k.value)
        self.at(node)
        return self.call(fn, args, kwargs, node)

    def call(self, fn, args, kwargs, node):
        from engine.capture.common import is_module
        from engine.capture.scripting import ScriptFunction, ScriptModule
        if fn is print and self.c.trace_time_print:
            return print(*(self.c.symbolic(a) for a in args), **kwargs)
        if fn is print:
            raise self.err(node, "print() inside a compiled function is not supported: the graph has no "
                                 "side effects (print outside the function, on its result)")
        if isinstance(fn, ScriptModule):
            fn = fn._module
        if isinstance(fn, ScriptFunction) or (inspect.isfunction(fn) and user_defined(fn)):
            return self.c.call_function(fn, tuple(args), kwargs)
        if inspect.ismethod(fn) and user_defined(fn.__func__):
            return self.c.call_function(fn.__func__, tuple(args), kwargs, self_obj=fn.__self__)
        if is_module(fn) and user_defined(type(fn).forward):
            prev = self.c.module_path
            path = getattr(fn, "_qualname", None) or prev
            self.c.module_path = path
            nn_context.push(path or "")
            try:
                return self.c.call_function(type(fn).forward, tuple(args), kwargs, self_obj=fn)
            finally:
                nn_context.pop()
                self.c.module_path = prev
        try:
            return fn(*args, **kwargs)      # library code: its ops on shadows are recorded
        except ScriptError:
            raise
        except Exception as exc:  # noqa: BLE001 - report it at the user's line
            raise self.err(node, f"{type(exc).__name__}: {exc}", construct=False) from exc

    def e_JoinedStr(self, node):
        return "".join(str(self.expr(v)) if not isinstance(v, ast.Constant) else v.value for v in node.values)

    def e_FormattedValue(self, node):
        return self.expr(node.value)

    # ---- control flow on tensors -------------------------------------------------------------------
    def c_cond(self, pred, branches: list, node):
        """Build a cond from two thunks evaluated in child graphs; returns the shadow(s) of its result."""
        results, ctxs = [], []
        for name, thunk in zip(("then", "else"), branches):
            ctx = _Ctx(self.c.ctx.graph.subgraph(name), self.c.ctx)
            ctxs.append(ctx)
            prev, self.c.ctx = self.c.ctx, ctx
            try:
                results.append(thunk())
            finally:
                self.c.ctx = prev
        return self._finish_cond(pred, ctxs, results, node)

    def _finish_cond(self, pred, ctxs, results, node):
        flat = [_flatten(r) for r in results]
        if len(flat[0]) != len(flat[1]):
            raise self.err(node, "the branches produce different numbers of values")
        tensor_slots = []
        for i, (a, b) in enumerate(zip(*flat)):
            if is_tensor(a) or is_tensor(b):
                tensor_slots.append(i)
            elif not (a is b or (type(a) is type(b) and a == b)):
                raise self.err(node, f"a branch produces the Python value {a!r} and the other {b!r}; "
                                     "Python values must agree (make it a tensor)")
        outs_per_branch = []
        likes = [a if is_tensor(a) else b for a, b in zip(*flat)]
        for ctx, values in zip(ctxs, flat):
            prev, self.c.ctx = self.c.ctx, ctx
            try:
                outs_per_branch.append([self._as_value(values[i], node, likes[i]) for i in tensor_slots])
            finally:
                self.c.ctx = prev
        for i, (a, b) in enumerate(zip(*outs_per_branch)):
            if a.shape != b.shape or a.dtype != b.dtype:
                raise self.err(node, f"result {i} is {a.dtype}{list(a.shape)} in the then branch but "
                                     f"{b.dtype}{list(b.shape)} in the else branch; both must agree")
        operands = self._unify_captures(ctxs)
        for ctx, outs in zip(ctxs, outs_per_branch):
            ctx.graph.output(outs)
        g = self.c.ctx.graph
        g.current_line = self.c.line
        outputs = g.cond(self.c.value_of(pred), ctxs[0].graph, ctxs[1].graph, operands)
        shadows = [self.c.shadow(v) for v in outputs]
        merged = list(flat[0])
        for slot, sh in zip(tensor_slots, shadows):
            merged[slot] = sh
        return _unflatten(results[0], iter(merged))

    def _as_value(self, x, node, like=None) -> Value:
        if is_tensor(x):
            return self.c.value_of(x)
        if isinstance(x, (bool, int, float)):
            if like is not None:      # a number beside a tensor in the other branch: take its spec
                return self.c.ctx.graph.constant(np.full(like.data.shape, x, dtype=like.data.dtype))
            return self.c.ctx.graph.as_value(x)
        raise self.err(node, f"a branch result of type {type(x).__name__} cannot be a graph value")

    def _unify_captures(self, ctxs, leading: int = 0) -> list[Value]:
        """Give every child graph the same placeholders (in one order) for what any of them captured;
        returns the outer values to pass (resolved in the current graph)."""
        union: list[Value] = []
        for ctx in ctxs:
            for v in ctx.captured:
                if all(u.id != v.id for u in union):
                    union.append(v)
        for ctx in ctxs:
            prev, self.c.ctx = self.c.ctx, ctx
            try:
                for v in union:
                    self.c.resolve(v)
            finally:
                self.c.ctx = prev
            wanted = [ctx.captures[v.id].producer for v in union]
            head = ctx.graph.placeholders[:leading]
            rest = [n for n in ctx.graph.nodes if n not in head and n not in wanted]
            ctx.graph.nodes = head + wanted + rest
        return [self.c.resolve(v) for v in union]

    def tensor_if(self, s: ast.If, test, rest: list) -> None:
        returns = _contains(s.body, ast.Return) or _contains(s.orelse, ast.Return)
        if returns:
            # Early return: the rest of the block runs only in the branch that falls through.
            body = s.body if _always_returns(s.body) else s.body + rest
            orelse = s.orelse if _always_returns(s.orelse) else s.orelse + rest
            results = []
            ctxs = []
            for name, stmts in (("then", body), ("else", orelse)):
                ctx = _Ctx(self.c.ctx.graph.subgraph(name), self.c.ctx)
                ctxs.append(ctx)
                saved_env = dict(self.env)
                prev, self.c.ctx = self.c.ctx, ctx
                try:
                    self.block(stmts)
                    results.append(None)          # fell off the end: returns None
                except _Return as ret:
                    results.append(ret.value)
                finally:
                    self.c.ctx = prev
                    self.env = saved_env
            if (results[0] is None) != (results[1] is None):
                raise self.err(s, "one branch returns a value and the other does not")
            self.at(s)
            raise _Return(self._finish_cond(test, ctxs, results, s) if results[0] is not None else None)
        names = _assigned_names(s.body + s.orelse)
        envs, ctxs = [], []
        for name, stmts in (("then", s.body), ("else", s.orelse)):
            ctx = _Ctx(self.c.ctx.graph.subgraph(name), self.c.ctx)
            ctxs.append(ctx)
            saved_env = dict(self.env)
            prev, self.c.ctx = self.c.ctx, ctx
            try:
                self.block(stmts)
                envs.append(self.env)
            finally:
                self.c.ctx = prev
                self.env = saved_env
        live = [n for n in names if n in envs[0] and n in envs[1]]
        results = [tuple(env[n] for n in live) for env in envs]
        self.at(s)
        merged = self._finish_cond(test, ctxs, results, s)
        for n, v in zip(live, merged):
            self.env[n] = v
        for n in names:
            if n not in live:
                self.env.pop(n, None)      # defined in one branch only: not usable after the if
        self.block(rest)

    def for_loop(self, s: ast.For) -> None:
        if s.orelse:
            raise self.err(s, "for ... else is not supported")
        if _contains(s.body, (ast.Return, ast.Break, ast.Continue)):
            raise self.err(s, "return/break/continue inside a loop is not supported in a compiled function")
        iterable = self.expr(s.iter)
        if is_tensor(iterable):
            raise self.err(s, "iterating over a tensor is not supported; loop over range(n) and index it")
        if isinstance(iterable, range) or isinstance(iterable, (list, tuple)) or hasattr(iterable, "__iter__"):
            items = list(iterable)
            if len(items) > MAX_UNROLL:
                raise self.err(s, f"a loop of {len(items)} iterations is too long to unroll (limit {MAX_UNROLL})")
            for item in items:
                self.assign(s.target, item)
                self.block(s.body)
            return
        raise self.err(s, f"cannot loop over a {type(iterable).__name__}")

    def while_loop(self, s: ast.While) -> None:
        if s.orelse:
            raise self.err(s, "while ... else is not supported")
        if _contains(s.body, (ast.Return, ast.Break, ast.Continue)):
            raise self.err(s, "return/break/continue inside a loop is not supported in a compiled function")
        for _ in range(MAX_STATIC_WHILE):
            test = self.expr(s.test)
            if is_tensor(test):
                return self.tensor_while(s)
            if not test:
                return
            self.block(s.body)
        raise self.err(s, f"a Python while loop ran more than {MAX_STATIC_WHILE} times while compiling")

    def tensor_while(self, s: ast.While) -> None:
        from engine.tensor import Tensor
        names = [n for n in _assigned_names(s.body) if n in self.env]
        init = []
        for n in names:
            v = self.env[n]
            if isinstance(v, (bool, int, float)) and not is_tensor(v):
                v = Tensor(np.asarray(v, dtype=np.int64 if isinstance(v, int) and not isinstance(v, bool)
                                      else np.float32 if isinstance(v, float) else np.bool_))
            if not is_tensor(v):
                raise self.err(s, f"loop variable {n!r} is a {type(v).__name__}; a tensor loop can only "
                                  "carry tensors and numbers")
            init.append(v)
        init_values = [self.c.value_of(v) for v in init]
        ctxs, results = [], []
        for name in ("cond", "body"):
            ctx = _Ctx(self.c.ctx.graph.subgraph(name), self.c.ctx)
            ctxs.append(ctx)
            saved_env = dict(self.env)
            prev, self.c.ctx = self.c.ctx, ctx
            try:
                for n, v in zip(names, init_values):
                    p = ctx.graph.placeholder(n, v.shape, v.dtype)
                    self.c.home[p.id] = ctx.graph
                    self.env[n] = self.c.shadow(p)
                if name == "cond":
                    test = self.expr(s.test)
                    if not is_tensor(test):
                        test = Tensor(np.asarray(bool(test)))
                    results.append([self.c.value_of(test)])
                else:
                    self.block(s.body)
                    out = []
                    for n, v0 in zip(names, init_values):
                        val = self._as_value(self.env[n], s)
                        if val.shape != v0.shape or val.dtype != v0.dtype:
                            raise self.err(s, f"loop variable {n!r} changes from {v0.dtype}{list(v0.shape)} to "
                                              f"{val.dtype}{list(val.shape)} inside the loop; it must keep its shape")
                        out.append(val)
                    results.append(out)
            finally:
                self.c.ctx = prev
                self.env = saved_env
        extra = self._unify_captures(ctxs, leading=len(names))
        cond_ctx, body_ctx = ctxs
        cond_ctx.graph.output(results[0])
        passthrough = [body_ctx.graph.placeholders[len(names) + i].out for i in range(len(extra))]
        body_ctx.graph.output(results[1] + passthrough)
        g = self.c.ctx.graph
        g.current_line = self.c.line
        outs = g.while_loop(cond_ctx.graph, body_ctx.graph, init_values + extra)
        for n, v in zip(names, outs):
            self.env[n] = self.c.shadow(v)


def _unflatten(template, it):
    if isinstance(template, tuple):
        return tuple(_unflatten(t, it) for t in template)
    if isinstance(template, list):
        return [_unflatten(t, it) for t in template]
    return next(it)


def spec_of(t) -> Spec:
    return Spec(tuple(t.data.shape), t.data.dtype)
