"""Symbolic execution for the AST compiler, and the types the compiler's files share (this is the
bottom of them: control_flow, ast_compiler and scripting import it, it imports none of them).
`Symbolic` owns the graph being built, the shadow tensors (real Tensors of ones standing for IR
values) and the observers that turn every op applied to a shadow into a call node; `_Ctx` is one
graph being built (a function's, a branch's, a loop body's) with the outer values it captured as
placeholders."""
from __future__ import annotations

import ast
import contextlib
import inspect
import linecache
import textwrap

import numpy as np

from engine import nn_context
from engine.capture import trail
from engine.capture.common import INPLACE_MESSAGE, ReadOnlyGuard, is_parameter_like
from engine.errors import GraphLoopLimit, UnsupportedError
from engine.hooks import OP_APPLIED, VALUE_READ
from engine.ir.graph import CALL, CONSTANT, Graph, Value
from engine.tensor import Tensor
from engine.user_code import USER_FILENAME, user_line


class ScriptError(UnsupportedError):
    """A construct the compiler cannot turn into the IR; says where and why."""

    no_source = False     # True: the source could not be read (the code itself may be fine)
    mutates_state = False # True: the code updates module state in place (BatchNorm in training)

    def __init__(self, reason: str, line: int | None, construct: bool = True):
        # construct=False: the code is fine but failed on these shapes (e.g. compiled before any call)
        self.reason, self.line, self.construct = reason, line, construct
        super().__init__(f"line {line}: {reason}" if line is not None else reason)


class LoopLimitError(ScriptError, GraphLoopLimit):
    """A ScriptError only a compiled tensor loop has (a loop variable it cannot carry): an unrolled loop may not."""


class CarryMore(Exception):
    """A tensor loop's body changes `objects` of a facade's state (Symbolic.carry: TensorFlow's variables it
    assigns) that the attempt did not carry: the loop is compiled again carrying them."""

    def __init__(self, objects: list):
        super().__init__("the loop changes state it does not carry yet")
        self.objects = objects


class Scripted:
    """What `torch.jit.script` returns (scripting.ScriptFunction and ScriptModule set `_fn`, the
    function compiled, and `_module`, the nn.Module whose forward it is, or None). The compiler
    compiles a call to one as a call to what it wraps; the type lives here so that the compiler
    knows it without importing scripting, which imports the compiler."""

    _fn: object
    _module: object


class _Return(Exception):
    """Internal: a `return` statement reached while compiling a block."""

    def __init__(self, value):
        self.value = value


def is_tensor(x) -> bool:
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
    return code is not None and code.co_filename == USER_FILENAME


class TensorRange:
    """A range whose bounds are tensors computed in the function (TensorFlow's `tf.range(n)` inside a
    tf.function): its length is known only when the graph runs, so it cannot be a tensor here; a
    compiled `for i in r:` becomes a while_loop over a counter, as AutoGraph converts that loop."""

    def __init__(self, start, limit, delta):
        self.start, self.limit, self.delta = start, limit, delta      # tensors, tensors, a Python number

    def __repr__(self) -> str:
        return f"<range from a tensor: step {self.delta}>"


class _Ctx:
    """One graph being built (the function's, or a branch/loop body) and what it captured from outside."""

    def __init__(self, graph: Graph, parent: "_Ctx | None"):
        self.graph = graph
        self.parent = parent
        self.captures: dict[str, Value] = {}      # outer value id -> this graph's placeholder
        self.captured: list[Value] = []           # those outer values, in capture order


class Symbolic:
    """The graph being built from shadows; ast_compiler.Compiler adds compiling a function's AST."""

    def __init__(self, graph: Graph):
        self.ctx = _Ctx(graph, None)
        self.sym: dict[int, Value] = {}           # id(shadow Tensor) -> the Value it stands for
        self.home: dict[str, Graph] = {}          # value id -> the graph that defines it
        self._alive: list = []
        self.data_of: dict[int, object] = {}      # id(shadow) -> its array when bound (in-place detection)
        self.by_array: dict[int, tuple] = {}      # id(array) -> (array, Value): who holds which result
        self.lifted: list = []                    # parameter-like tensors made inputs, by reference
        self.guard = ReadOnlyGuard()
        self.line: int | None = None
        self.module_path: str | None = None
        # tf.function semantics: Python print runs while tracing (once per trace) and shows
        # symbolic tensors; torch.jit.script/compile refuse it instead.
        self.trace_time_print = False
        # (and not at all in a trace the facade's library would not make: Dagscope's graphs have fixed
        # shapes, so it traces per shape where TensorFlow's one trace serves several)
        self.quiet_prints = False
        # and an assignment to an attribute or an item runs in Python, once, while tracing (a Python side
        # effect: `self.counter += 1`); torch.jit.script refuses it, as TorchScript has no such effects
        self.python_state = False
        # and which iterables the graph receives as an input to loop over (TensorFlow's tf.data.Dataset):
        # None, or a function giving None or (the shadow of the iterable's input, [(shape, dtype)] of an
        # element's components, a function packing the component shadows into the element, a function
        # called when the loop is unrolled instead, over the elements iterated while compiling)
        self.loop_source = None
        # and whether `for row in x` over a tensor computed in the function is a while_loop (TensorFlow's
        # AutoGraph) rather than refused
        self.tensor_loops = False
        # and whether a tensor loop's variables are carried in the order of their names (AutoGraph's), not
        # in the order the body assigns them
        self.sorted_loop_variables = False
        # (dict, key) of each place outside the function a python_state assignment stored a value in (a
        # global): a facade may replace a shadow left there once the trace ends (TensorFlow's leaked tensor)
        self.escaped: list = []
        # and the facade state a tensor loop's body changes (TensorFlow's variables): None, or an object with
        # value(o) (its value before the loop), enter(objs) -> frame and leave(frame) -> [state the body changed
        # that objs lacks] around compiling the loop, bind(objs, shadows) (its value in the cond or body being
        # compiled), current(o) (its value at the body's end), finish(objs, results) (after the loop)
        self.carry = None
        # What a facade's code sees between ops: the class of the shadows (a facade's own Tensor
        # subclass, e.g. TensorFlow's EagerTensor with TF's operators and dtype rules) and the dtype a
        # Python int carried by a tensor loop becomes (PyTorch's int64; TensorFlow's int32).
        self.tensor_type = None
        self.int_dtype = np.int64
        # and how a facade's tensor-like object (TensorFlow's tf.Variable) gives the tensor it stands for,
        # where the compiler needs a tensor: a value a tensor loop carries
        self.unwrap = None
        # how a shadow prints at trace time, given its IR value (a facade's words: TensorFlow's `x:0`)
        self.symbolic_text = None

    # ---- shadows and values ------------------------------------------------------------------
    def shadow(self, value: Value, tensor=None):
        """A Tensor standing for `value` (ones, unless a real tensor such as a parameter is given)."""
        if tensor is None:
            tensor = (self.tensor_type or Tensor)(np.ones(value.shape, dtype=value.dtype))
            # A float shadow requires grad so that in-place ops on it (and with it) take the recorded
            # path (apply + _become) rather than an unrecorded numpy ufunc.
            tensor.requires_grad = tensor.array.dtype.kind == "f"
        self.sym[id(tensor)] = value
        self.data_of[id(tensor)] = tensor.array
        self.by_array[id(tensor.array)] = (tensor.array, value)
        self.guard.protect(tensor.array)
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

    def _visible(self, v: Value) -> bool:
        home, ctx = self.home.get(v.id), self.ctx
        while ctx is not None:
            if ctx.graph is home:
                return True
            ctx = ctx.parent
        return False

    def _forget_if_out_of_scope(self, t) -> None:
        """A constant made for `t` inside a branch or loop body is not visible after it: forget it,
        so this use makes the constant again where it is (e.g. a global tensor read in an `if`
        and after it)."""
        v = self.sym.get(id(t))
        if v is not None and v.producer is not None and v.producer.kind == CONSTANT and not self._visible(v):
            del self.sym[id(t)]
            known = self.by_array.get(id(t.array))
            if known is not None and known[1] is v:
                del self.by_array[id(t.array)]

    def value_of(self, t) -> Value:
        self._forget_if_out_of_scope(t)
        v = self.sym.get(id(t))
        if v is None or t.array is not self.data_of[id(t)]:
            # an in-place op made `t` take another op's result array: it now stands for that value
            known = self.by_array.get(id(t.array))
            if known is not None and known[0] is t.array:
                self.sym[id(t)], self.data_of[id(t)] = known[1], t.array
                self._alive.append(t)
                return self.resolve(known[1])
            if v is not None:
                raise ScriptError(INPLACE_MESSAGE, self.line)
        if v is None and is_parameter_like(t):
            # a parameter read from outside (a global, a closure, an attribute): an input of the
            # outermost graph, passed by reference at every call, so updates to it are seen
            root = self.ctx
            while root.parent is not None:
                root = root.parent
            p = root.graph.placeholder(t._name or f"captured_{len(self.lifted)}", t.array.shape, t.array.dtype,
                                       role="param")
            self.home[p.id] = root.graph
            self.sym[id(t)], self.data_of[id(t)] = p, t.array
            self.by_array[id(t.array)] = (t.array, p)
            self.guard.protect(t.array)
            self._alive.append(t)
            self.lifted.append(t)
            return self.resolve(p)
        if v is None:           # a tensor made inside the function (torch.ones) or a global: a constant
            v = self.ctx.graph.constant(np.array(t.array, copy=True), name=t._name)
            self.sym[id(t)] = v
            self.data_of[id(t)] = t.array
            self.by_array[id(t.array)] = (t.array, v)
            self.guard.protect(t.array)
            self.home[v.id] = self.ctx.graph
            self._alive.append(t)
            return v
        return self.resolve(v)

    def drop_unused(self, graph: Graph, nodes: list) -> None:
        """Remove these call and constant nodes of `graph` where nothing reads them (last first, so a
        chain goes), and forget the tensors standing for them (a later use makes a fresh node)."""
        users = graph.users()
        gone: set = set()
        for node in reversed(nodes):
            if node.kind not in (CALL, CONSTANT):
                continue
            if all(u.id in gone for v in node.outputs for u in users.get(v.id, [])) and \
                    all(v is not o for v in node.outputs for o in graph.outputs):
                graph.remove(node)
                gone.add(node.id)
        dropped = {v.id for n in nodes if n.id in gone for v in n.outputs}
        for key in [k for k, v in self.sym.items() if v.id in dropped]:
            del self.sym[key]
        for key in [k for k, (_, v) in self.by_array.items() if v.id in dropped]:
            del self.by_array[key]

    def symbolic(self, x):
        """How a shadow prints at trace time (as TensorFlow prints a symbolic tensor)."""
        v = self.sym.get(id(x)) if is_tensor(x) else None
        if v is None:
            return x
        if self.symbolic_text is not None:
            return self.symbolic_text(v)
        return f'Tensor("{v.name or v.id}", shape={tuple(v.shape)}, dtype={np.dtype(v.dtype).name})'

    # ---- observers: ops on shadows become nodes --------------------------------------------------
    def observe(self, op, tensors, attrs, out) -> None:
        g = self.ctx.graph
        # outside any compiled user line (library code run or compiled at the top: a scripted
        # nn.GELU, torch.jit.script(F.gelu)), the node belongs to the user's line that called it
        g.current_line = self.line if self.line is not None else user_line()
        g.current_module = nn_context.current_module_path() or self.module_path
        v = g.call(op.name, *(self.value_of(t) for t in tensors), **attrs)
        self.shadow(v, out)

    def on_value_read(self, tensor, kind: str) -> None:
        if id(tensor) in self.sym:
            what = {"bool": "a Python boolean", "tolist": "a Python list",
                    "numpy": "a NumPy array"}.get(kind, "a Python number")
            # construct=False: valid Python that needs a value only a call provides (e.g. range(n)
            # over an int argument while compiling before any call)
            raise ScriptError(f"converting a tensor to {what} here cannot be compiled: its value is only "
                              "known when the graph runs (use it in an `if`/`while` condition, or keep it a tensor)",
                              self.line, construct=False)

    @contextlib.contextmanager
    def paused(self):
        """Ops run outside the graph for the block's duration (TensorFlow's tf.init_scope): they are not
        recorded, and reading a value is allowed."""
        OP_APPLIED.remove(self.observe)
        VALUE_READ.remove(self.on_value_read)
        try:
            yield
        finally:
            OP_APPLIED.append(self.observe)
            VALUE_READ.append(self.on_value_read)

    def __enter__(self):
        OP_APPLIED.append(self.observe)
        VALUE_READ.append(self.on_value_read)
        self._err = np.seterr(all="ignore")       # shadows are ones: log/div warnings mean nothing
        trail.capture_started()
        return self

    def __exit__(self, *exc):
        OP_APPLIED.remove(self.observe)
        VALUE_READ.remove(self.on_value_read)
        np.seterr(**self._err)
        trail.capture_ended()
        self.guard.release()
        return False


def _flatten(x) -> list:
    return [y for item in x for y in _flatten(item)] if isinstance(x, (tuple, list)) else [x]


def _unflatten(template, it):
    if isinstance(template, tuple):
        return tuple(_unflatten(t, it) for t in template)
    if isinstance(template, list):
        return [_unflatten(t, it) for t in template]
    return next(it)
