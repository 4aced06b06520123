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
import contextlib
import builtins
import inspect
import operator

import numpy as np

from engine import nn_context
from engine.autograd import _SetGrad
from engine.capture.common import INPLACE_MESSAGE, is_module, is_readonly_error
from engine.capture.control_flow import ControlFlow
# re-exported: scripting, compile, function and the TensorFlow facade import these from here
from engine.capture.symbolic import (LoopLimitError, ScriptError, Scripted, Symbolic, _Ctx, _flatten, _Return,  # noqa: F401
                                     _unflatten, is_tensor, parse_function, user_defined)
from engine.ops.registry import Spec
from engine.tensor import Tensor
from engine.user_code import user_line

BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
          ast.MatMult: operator.matmul, ast.Pow: operator.pow, ast.FloorDiv: operator.floordiv,
          ast.Mod: operator.mod}
CMPOPS = {ast.Gt: operator.gt, ast.Lt: operator.lt, ast.GtE: operator.ge, ast.LtE: operator.le,
          ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Is: operator.is_, ast.IsNot: operator.is_not,
          ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b}


def _loaded(target):
    """An assignment's target (`self.counter`) as an expression that reads it."""
    node = ast.copy_location(type(target)(**{f: getattr(target, f) for f in target._fields if f != "ctx"},
                                          ctx=ast.Load()), target)
    return node


class Compiler(Symbolic):
    """Builds one Graph from a Python function's AST (see the module docstring)."""

    def call_function(self, fn, args: tuple, kwargs: dict, self_obj=None):
        """Compile a user function's body with these (shadow or Python) arguments; returns its result."""
        if isinstance(fn, Scripted):
            fn = fn._fn
        tree, offset = parse_function(fn)
        sig = inspect.signature(fn)
        bound = sig.bind(*((self_obj,) if self_obj is not None else ()), *args, **kwargs)
        bound.apply_defaults()
        env = dict(bound.arguments)
        frame = _Frame(self, fn, offset, env, library=not user_defined(fn))
        prev_line = self.line
        try:
            frame.block(tree.body)
        except _Return as ret:
            return ret.value
        finally:
            self.line = prev_line
        return None


class _Frame(ControlFlow):
    """One function activation: its variables, globals and the file line offset. A library
    function's frame (`library`, compiled when a user scripts it: torch.jit.script(F.gelu)) keeps
    the user's calling line: its own lines are in a file the user never sees."""

    def __init__(self, comp: Compiler, fn, offset: int, env: dict, library: bool = False):
        self.c = comp
        self.fn = fn
        self.library = library
        self.offset = offset
        self.env = env
        self.globals = fn.__globals__
        self.global_names: set[str] = set()      # names a `global` statement declared (python_state only)
        if fn.__closure__:
            for name, cell in zip(fn.__code__.co_freevars, fn.__closure__):
                try:
                    self.env.setdefault(name, cell.cell_contents)
                except ValueError:
                    pass

    def err(self, node, reason: str, construct: bool = True, loop_limit: bool = False) -> ScriptError:
        """The error at `node`'s line; `loop_limit`: one only a compiled tensor loop has (GraphLoopLimit)."""
        if self.library:            # the user's line that compiled it, not the library file's
            line = self.c.line if self.c.line is not None else user_line()
        else:
            line = node.lineno + self.offset if hasattr(node, "lineno") else self.c.line
        return (LoopLimitError if loop_limit else ScriptError)(reason, line, construct)

    def at(self, node) -> None:
        if hasattr(node, "lineno") and not self.library:
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
            if not isinstance(s.target, ast.Name) and not self.c.python_state:
                raise self.err(s, "augmented assignment to an attribute or item mutates state; assign a new name")
            op = BINOPS.get(type(s.op))
            if op is None:
                raise self.err(s, f"operator {type(s.op).__name__} is not supported")
            if isinstance(s.target, ast.Name) and s.target.id not in self.global_names:
                self.env[s.target.id] = op(self.lookup(s.target), self.expr(s.value))
            else:
                self.assign(s.target, op(self.expr(_loaded(s.target)), self.expr(s.value)))
        elif isinstance(s, ast.Return):
            raise _Return(self.expr(s.value) if s.value is not None else None)
        elif isinstance(s, ast.For):
            self.for_loop(s)
        elif isinstance(s, ast.While):
            self.while_loop(s)
        elif isinstance(s, ast.Global) and self.c.python_state:
            # a Python side effect, once per trace: the names are the module's (a tensor assigned to one
            # escapes the graph: Symbolic.escaped)
            self.global_names.update(s.names)
            for n in s.names:
                self.env.pop(n, None)
        elif isinstance(s, ast.Pass):
            return
        elif isinstance(s, ast.Assert):
            test = self.expr(s.test)
            if is_tensor(test):
                raise self.err(s, "assert on a tensor's value cannot be compiled")
            if not test:
                raise AssertionError(self.expr(s.msg) if s.msg else "")
        elif isinstance(s, ast.With):
            self.with_block(s)
        else:
            raise self.err(s, f"`{type(s).__name__}` statements are not supported in a compiled function "
                              "(supported: assignment, if/else, for over range or a list, while, return)")

    def with_block(self, s: ast.With) -> None:
        """`with ... as name:` enters the manager (a tf.GradientTape records the body); grad-mode
        switches such as torch.no_grad() are not entered: they do not change the captured graph."""
        with contextlib.ExitStack() as stack:
            for item in s.items:
                manager = self.expr(item.context_expr)
                value = manager if isinstance(manager, _SetGrad) else stack.enter_context(manager)
                if item.optional_vars is not None:
                    self.assign(item.optional_vars, value)
            self.block(s.body)

    def assign(self, target, value) -> None:
        if isinstance(target, ast.Name) and target.id in self.global_names:
            self.globals[target.id] = value
            self.c.escaped.append((self.globals, target.id))
        elif isinstance(target, ast.Name):
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
        elif isinstance(target, ast.Attribute) and self.c.python_state:
            setattr(self.expr(target.value), target.attr, value)
        elif isinstance(target, ast.Subscript) and self.c.python_state:
            self.expr(target.value)[self.expr(target.slice)] = value
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

    def e_Lambda(self, node):
        """A lambda (the branches of tf.cond, a while_loop's body) compiles its body when called."""
        a = node.args
        if a.posonlyargs or a.vararg or a.kwonlyargs or a.kwarg or a.defaults:
            raise self.err(node, "only lambdas with plain positional arguments are supported")
        names = [arg.arg for arg in a.args]
        captured = dict(self.env)

        def call(*values):
            if len(values) != len(names):
                raise TypeError(f"<lambda>() takes {len(names)} positional arguments but {len(values)} were given")
            saved, self.env = self.env, {**captured, **dict(zip(names, values))}
            try:
                return self.expr(node.body)
            finally:
                self.env = saved
        return call

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

    def e_Dict(self, node):
        if any(k is None for k in node.keys):
            raise self.err(node, "`**` in a dict display is not supported")
        return {self.expr(k): self.expr(v) for k, v in zip(node.keys, node.values)}

    def e_ListComp(self, node):
        return list(self._comprehension(node, lambda: self.expr(node.elt)))

    e_GeneratorExp = e_ListComp

    def e_DictComp(self, node):
        return dict(self._comprehension(node, lambda: (self.expr(node.key), self.expr(node.value))))

    def _comprehension(self, node, element):
        """Comprehensions over Python iterables run now, like an unrolled for loop."""
        saved = dict(self.env)

        def walk(generators):
            if not generators:
                yield element()
                return
            gen = generators[0]
            if gen.is_async:
                raise self.err(node, "async comprehensions are not supported")
            iterable = self.expr(gen.iter)
            if is_tensor(iterable):
                raise self.err(node, "iterating over a tensor is not supported; loop over range(n) and index it")
            for item in iterable:
                self.assign(gen.target, item)
                conditions = [self.expr(c) for c in gen.ifs]
                if any(is_tensor(c) for c in conditions):
                    raise self.err(node, "a comprehension filter on a tensor's value cannot be compiled")
                if all(conditions):
                    yield from walk(generators[1:])
        try:
            return list(walk(node.generators))
        finally:
            self.env = saved

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
            return x if x.array.dtype == np.bool_ else (x != 0)
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
        if fn is print and self.c.trace_time_print:
            if self.c.quiet_prints:
                return None
            return print(*(self.c.symbolic(a) for a in args), **kwargs)
        if fn is print:
            raise self.err(node, "print() inside a compiled function is not supported: the graph has no "
                                 "side effects (print outside the function, on its result)")
        if isinstance(fn, Scripted) and fn._module is not None:     # a ScriptModule: its module
            fn = fn._module
        if isinstance(fn, Scripted) or (inspect.isfunction(fn) and user_defined(fn)):
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
            if is_readonly_error(exc):
                raise self.err(node, INPLACE_MESSAGE) from None
            raise self.err(node, f"{type(exc).__name__}: {exc}", construct=False) from exc

    def e_JoinedStr(self, node):
        return "".join(str(self.expr(v)) if not isinstance(v, ast.Constant) else v.value for v in node.values)

    def e_FormattedValue(self, node):
        return self.expr(node.value)

    # ---- control flow on tensors -------------------------------------------------------------------


def spec_of(t) -> Spec:
    return Spec(tuple(t.array.shape), t.array.dtype)
