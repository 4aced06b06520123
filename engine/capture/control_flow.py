"""Control flow on tensors for the AST compiler: `if` on a tensor becomes a `cond` node (both
branches compiled into sub-graphs, assigned variables its outputs, an early `return` taking the
rest of the block into the branch that falls through), `while` on a tensor a `while_loop` node;
Python-valued conditions and loops over Python iterables run now (unrolled). For a facade that asks
(Symbolic.tensor_loops, loop_source: TensorFlow's), a `for` over a tensor computed in the function is
a while_loop over its rows, and one over an iterable the graph receives as an input (a tf.data.Dataset)
a while_loop over a cursor the graph makes when it runs."""
from __future__ import annotations

import ast
import contextlib

import numpy as np

from engine.capture.symbolic import (CarryMore, ScriptError, TensorRange, _Ctx, _flatten, _Return, _unflatten,
                                     is_tensor)
from engine.errors import GraphLoopLimit, UnsupportedError
from engine.ir.graph import Value
from engine.tensor import Tensor, apply

MAX_UNROLL = 1000            # longer Python loops are refused rather than exploding the graph
MAX_STATIC_WHILE = 10_000


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


def _jumps(stmts) -> bool:
    """Whether a `break` or `continue` of this loop is among the statements (not one of a loop nested in them)."""
    for st in stmts:
        if isinstance(st, (ast.Break, ast.Continue)):
            return True
        if isinstance(st, (ast.If, ast.With)) and (_jumps(st.body) or _jumps(getattr(st, "orelse", []))):
            return True
    return False


def _name(name: str, store: bool = False) -> ast.Name:
    return ast.Name(id=name, ctx=ast.Store() if store else ast.Load())


def _set(name: str, value: bool) -> ast.Assign:
    return ast.Assign(targets=[_name(name, True)], value=ast.Constant(value))


def _lower_jumps(stmts, broke: str, skip: str) -> list:
    """The loop body with its `break` and `continue` as AutoGraph lowers them: `broke = True` / `skip = True`,
    and every statement after one that may have jumped guarded by `if not (broke or skip):`, so the body runs
    as a tensor loop's (the loop's test then checks `broke` first)."""
    out: list = []
    for i, st in enumerate(stmts):
        if isinstance(st, (ast.Break, ast.Continue)):
            out.append(ast.copy_location(_set(broke if isinstance(st, ast.Break) else skip, True), st))
            return out                                  # (what follows it in this block never runs)
        if isinstance(st, (ast.If, ast.With)) and _jumps([st]):
            lowered = type(st)(**{f: getattr(st, f) for f in st._fields})
            lowered.body = _lower_jumps(st.body, broke, skip) or [ast.Pass()]
            if isinstance(st, ast.If):
                lowered.orelse = _lower_jumps(st.orelse, broke, skip)
            out.append(ast.copy_location(lowered, st))
            rest = _lower_jumps(stmts[i + 1:], broke, skip)
            if rest:
                going = ast.UnaryOp(op=ast.Not(), operand=ast.BoolOp(op=ast.Or(), values=[_name(broke), _name(skip)]))
                out.append(ast.copy_location(ast.If(test=going, body=rest, orelse=[]), stmts[i + 1]))
            return out
        out.append(st)
    return out


class ControlFlow:
    """Mixed into _Frame: needs self.c (Compiler), self.env, self.expr, self.block, self.err, self.at."""

    @contextlib.contextmanager
    def _building_in(self, ctx):
        """Ops go into ctx's graph for the block's duration."""
        prev, self.c.ctx = self.c.ctx, ctx
        try:
            yield ctx
        finally:
            self.c.ctx = prev

    def _child(self, name: str, ctxs: list) -> _Ctx:
        """A new child graph of the current one (a branch, a loop's cond or body), added to ctxs."""
        ctx = _Ctx(self.c.ctx.graph.subgraph(name), self.c.ctx)
        ctxs.append(ctx)
        return ctx

    @contextlib.contextmanager
    def _branch(self, name: str, ctxs: list):
        """Build into a new child graph with the variables as they are now; they are restored after."""
        saved_env = dict(self.env)
        try:
            with self._building_in(self._child(name, ctxs)) as ctx:
                yield ctx
        finally:
            self.env = saved_env

    def c_cond(self, pred, branches: list, node):
        """Build a cond from two thunks evaluated in child graphs; returns the shadow(s) of its result."""
        results, ctxs = [], []
        for name, thunk in zip(("then", "else"), branches):
            with self._building_in(self._child(name, ctxs)):
                results.append(thunk())
        return self._finish_cond(pred, ctxs, results, node)

    def _finish_cond(self, pred, ctxs, results, node):
        flat = [_flatten(r) for r in results]
        if len(flat[0]) != len(flat[1]):
            raise self.err(node, "the branches produce different numbers of values")
        tensor_slots = []
        for i, (a, b) in enumerate(zip(*flat)):
            if is_tensor(a) or is_tensor(b):
                tensor_slots.append(i)
            elif a is b or (type(a) is type(b) and isinstance(a, (bool, int, float, str, type(None))) and a == b):
                continue
            elif type(a) is type(b) and isinstance(a, (bool, int, float)):
                tensor_slots.append(i)        # a number that depends on the branch becomes a tensor
            else:
                raise self.err(node, f"a branch produces the Python value {a!r} and the other {b!r}; "
                                     "Python values must agree (make it a tensor)")
        outs_per_branch = []
        likes = [a if is_tensor(a) else b for a, b in zip(*flat)]
        for ctx, values in zip(ctxs, flat):
            with self._building_in(ctx):
                outs_per_branch.append([self._as_value(values[i], node, likes[i]) for i in tensor_slots])
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
            if is_tensor(like):       # a number beside a tensor in the other branch: take its spec
                return self.c.ctx.graph.constant(np.full(like.array.shape, x, dtype=like.array.dtype))
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
            with self._building_in(ctx):
                for v in union:
                    self.c.resolve(v)
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
                with self._branch(name, ctxs):
                    try:
                        self.block(stmts)
                        results.append(None)          # fell off the end: returns None
                    except _Return as ret:
                        results.append(ret.value)
            if (results[0] is None) != (results[1] is None):
                raise self.err(s, "one branch returns a value and the other does not")
            self.at(s)
            raise _Return(self._finish_cond(test, ctxs, results, s) if results[0] is not None else None)
        names = _assigned_names(s.body + s.orelse)
        envs, ctxs = [], []
        for name, stmts in (("then", s.body), ("else", s.orelse)):
            with self._branch(name, ctxs):
                self.block(stmts)
                envs.append(self.env)
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

    def _without_jumps(self, s):
        """The loop with its `break`/`continue` lowered to flags (_lower_jumps): a copy whose `dagscope_break`
        names the break flag, which the loop's test reads; the flags start False. None if it has neither."""
        if not _jumps(s.body):
            return None
        broke, skip = f"break flag, line {s.lineno}", f"continue flag, line {s.lineno}"
        loop = type(s)(**{f: getattr(s, f) for f in s._fields})
        loop.body = [ast.copy_location(_set(skip, False), s.body[0])] + _lower_jumps(s.body, broke, skip)
        ast.fix_missing_locations(ast.copy_location(loop, s))
        loop.dagscope_break = broke
        self.env[broke] = False
        return loop

    def _loop_test(self, s, test):
        """A loop's test, checked only while its body has not broken out."""
        broke = getattr(s, "dagscope_break", None)
        if broke is None:
            return test
        return ast.IfExp(test=_name(broke), body=ast.Constant(False), orelse=test)

    def for_loop(self, s: ast.For) -> None:
        if s.orelse:
            raise self.err(s, "for ... else is not supported")
        if _contains(s.body, ast.Return):
            raise self.err(s, "return inside a loop is not supported in a compiled function")
        lowered = self._without_jumps(s)
        if lowered is not None:
            try:
                return self.for_loop(lowered)
            finally:
                self.env.pop(lowered.dagscope_break, None)
                self.env.pop(f"continue flag, line {s.lineno}", None)
        iterable = self.expr(s.iter)
        if isinstance(iterable, TensorRange):
            return self.range_loop(s, iterable)
        source = self.c.loop_source(iterable) if self.c.loop_source is not None else None
        if source is not None:
            handle, components, pack, unrolled = source
            if self._compiled_or_unrolled(lambda: self.iterator_loop(s, handle, components, pack)):
                return
            unrolled()          # the body needs what only an unrolled loop has: over the elements seen now
        if is_tensor(iterable) and id(iterable) in self.c.sym:
            if not self.c.tensor_loops:
                raise self.err(s, "iterating over a tensor is not supported; loop over range(n) and index it")
            return self.tensor_rows_loop(s, iterable)
        if is_tensor(iterable) and self.c.tensor_loops and self._compiled_or_unrolled(
                lambda: self.tensor_rows_loop(s, iterable)):
            return
        if is_tensor(iterable):
            # a constant tensor (tf.range(3) in a tf.function) has known rows: it unrolls as a list of
            # constants does (its rows taken from the array, so they stay known values, not graph nodes)
            iterable = [type(iterable)(np.array(row)) for row in iterable.array]
        if isinstance(iterable, range) or isinstance(iterable, (list, tuple)) or hasattr(iterable, "__iter__"):
            items = list(iterable)
            if len(items) > MAX_UNROLL:
                raise self.err(s, f"a loop of {len(items)} iterations is too long to unroll (limit {MAX_UNROLL})")
            broke = getattr(s, "dagscope_break", None)
            for item in items:
                self.assign(s.target, item)
                self.block(s.body)
                if broke is not None and is_tensor(self.env.get(broke)):
                    raise self.err(s, "break and return statements which depend on a TF condition are not "
                                      "supported in Python for loops. Did you intend to make it a TF loop?")
                if broke is not None and self.env.get(broke) is True:     # a break Python decided
                    break
            return
        raise self.err(s, f"cannot loop over a {type(iterable).__name__}")

    def _compiled_or_unrolled(self, compile_loop) -> bool:
        """A loop over a constant tensor (tf.range(3)) or a dataset is a while_loop, as AutoGraph makes it, where
        Dagscope's loops can carry what the body changes; where they cannot (a TensorArray written at the
        counter, a variable assigned in the body) it is unrolled over the values known now, as before: False
        then (nothing of the attempt is left in the graph)."""
        graph, before, env = self.c.ctx.graph, {id(n) for n in self.c.ctx.graph.nodes}, dict(self.env)
        try:
            compile_loop()
            return True
        except UnsupportedError as exc:
            if not isinstance(exc, GraphLoopLimit) and not isinstance(exc.__cause__, GraphLoopLimit):
                raise
            self.env = env
            self.c.drop_unused(graph, [n for n in graph.nodes if id(n) not in before])
            return False

    def tensor_rows_loop(self, s: ast.For, tensor) -> None:
        """`for row in x` over a tensor computed in the function, as AutoGraph converts it: a while_loop over
        a counter from 0 to the first dimension, each iteration `row = x[counter]`."""
        if not tensor.array.ndim:
            raise self.err(s, "iteration over a 0-d tensor is not allowed")
        make = self.c.tensor_type or Tensor
        whole = f"iterated tensor, line {s.lineno}"
        self.env[whole] = tensor
        graph = self.c.ctx.graph
        try:
            self.range_loop(s, TensorRange(make(np.asarray(0, self.c.int_dtype)),
                                           make(np.asarray(tensor.array.shape[0], self.c.int_dtype)), 1),
                            rows_of=whole)
        finally:
            self.env.pop(whole, None)
        loop = [n for n in graph.nodes if n.kind == "while_loop"][-1]
        loop.attrs["rows_of"] = self.c.value_of(tensor).id       # (a facade may draw it as its own kind of loop)

    def range_loop(self, s: ast.For, r: TensorRange, rows_of: str | None = None) -> None:
        """`for i in r` over a range with tensor bounds, as AutoGraph converts `for i in tf.range(n)`:
        a counter runs from start while it is below the limit (above, for a negative step); each
        iteration is `i = counter`, the body, `counter += step` — compiled as that `while` (a while_loop
        node, whose loop variables are the counter and what the body assigns)."""
        counter, limit = f"range counter, line {s.lineno}", f"range limit, line {s.lineno}"   # no user name clashes
        self.env[counter], self.env[limit] = r.start, r.limit

        def name(n, store=False):
            return ast.Name(id=n, ctx=ast.Store() if store else ast.Load())
        loop = ast.While(
            test=self._loop_test(s, ast.Compare(left=name(counter), ops=[ast.Lt() if r.delta > 0 else ast.Gt()],
                                                comparators=[name(limit)])),
            body=[ast.Assign(targets=[s.target], value=name(counter) if rows_of is None else ast.Subscript(
                      value=name(rows_of), slice=name(counter), ctx=ast.Load())), *s.body,
                  ast.Assign(targets=[name(counter, True)],
                             value=ast.BinOp(left=name(counter), op=ast.Add(), right=ast.Constant(r.delta)))],
            orelse=[])
        ast.fix_missing_locations(ast.copy_location(loop, s))
        try:
            self.while_loop(loop)
        finally:
            self.env.pop(counter, None)
            self.env.pop(limit, None)

    def iterator_loop(self, s: ast.For, handle, components: list, pack) -> None:
        """`for x in it` over an iterable the graph receives as an input (a tf.data.Dataset), as AutoGraph
        makes it one loop op (a ReduceDataset): a cursor made when the graph runs (`iterator_start`), then
        a while_loop whose condition advances it (`iterator_next`) and whose body is `x = the element`
        (`iterator_item` per component) and the loop's body — the body compiled once, whatever the count."""
        cursor, advance, element = (f"{what}, line {s.lineno}" for what in ("iterator", "advance", "element"))
        self.env[cursor] = apply("iterator_start", handle)
        self.env[advance] = lambda c: apply("iterator_next", c)
        self.env[element] = lambda c: pack([apply("iterator_item", c, component=k, shape=shape, dtype=dtype)
                                            for k, (shape, dtype) in enumerate(components)])

        def name(n):
            return ast.Name(id=n, ctx=ast.Load())
        loop = ast.While(test=self._loop_test(s, ast.Call(func=name(advance), args=[name(cursor)], keywords=[])),
                         body=[ast.Assign(targets=[s.target], value=ast.Call(func=name(element), args=[name(cursor)],
                                                                             keywords=[])), *s.body],
                         orelse=[])
        ast.fix_missing_locations(ast.copy_location(loop, s))
        try:
            self.tensor_while(loop)
        finally:
            for n in (cursor, advance, element):
                self.env.pop(n, None)

    def while_loop(self, s: ast.While) -> None:
        if s.orelse:
            raise self.err(s, "while ... else is not supported")
        if _contains(s.body, ast.Return):
            raise self.err(s, "return inside a loop is not supported in a compiled function")
        lowered = self._without_jumps(s)
        if lowered is not None:
            lowered.test = self._loop_test(lowered, s.test)
            try:
                return self.while_loop(lowered)
            finally:
                self.env.pop(lowered.dagscope_break, None)
                self.env.pop(f"continue flag, line {s.lineno}", None)
        for _ in range(MAX_STATIC_WHILE):
            graph = self.c.ctx.graph
            before = {id(n) for n in graph.nodes}
            test = self.expr(s.test)
            if is_tensor(test):
                # this evaluation only told a tensor condition from a Python one: the loop's cond
                # sub-graph computes the test, so the nodes it left in this graph would dangle
                self.c.drop_unused(graph, [n for n in graph.nodes if id(n) not in before])
                return self.tensor_while(s)
            if not test:
                return
            self.block(s.body)
        raise self.err(s, f"a Python while loop ran more than {MAX_STATIC_WHILE} times while compiling")

    def tensor_while(self, s: ast.While) -> None:
        """The while_loop node. What the facade's state the body changes (Symbolic.carry: TensorFlow's variables
        assigned in it) is found by compiling: an attempt that met state it does not carry ends in CarryMore,
        and the loop is compiled again carrying that too, its trace-time prints quiet."""
        carried: list = []
        quiet = self.c.quiet_prints
        try:
            while True:
                try:
                    results = self._tensor_while(s, carried)
                    break
                except (CarryMore, ScriptError) as exc:
                    more = exc if isinstance(exc, CarryMore) else exc.__cause__
                    new = [o for o in getattr(more, "objects", []) if all(o is not c for c in carried)]
                    if not isinstance(more, CarryMore) or self.c.carry is None or not new:
                        raise
                    carried += new
                    self.c.quiet_prints = True
        finally:
            self.c.quiet_prints = quiet
        if carried:         # (outside the attempts: an enclosing loop may have to carry them too)
            self.c.carry.finish(carried, results)

    def _tensor_while(self, s: ast.While, carried: list) -> list:
        carry = self.c.carry
        names = [n for n in _assigned_names(s.body) if n in self.env]
        if self.c.sorted_loop_variables:
            names.sort()
        init = []
        for n in names:
            v = self.env[n]
            if self.c.unwrap is not None:
                v = self.c.unwrap(v)
            if isinstance(v, (bool, int, float)) and not is_tensor(v):
                v = (self.c.tensor_type or Tensor)(np.asarray(
                    v, dtype=self.c.int_dtype if isinstance(v, int) and not isinstance(v, bool)
                    else np.float32 if isinstance(v, float) else np.bool_))
            if not is_tensor(v):
                raise self.err(s, f"loop variable {n!r} is a {type(v).__name__}; a tensor loop can only "
                                  "carry tensors and numbers", loop_limit=True)
            init.append(v)
        # (their values made in the order the function defined them: a constant's node comes first for the first)
        defined = list(self.env)
        made = {n: self.c.value_of(v) for n, v in sorted(zip(names, init), key=lambda nv: defined.index(nv[0]))}
        init_values = [made[n] for n in names]
        carried_init = [self.c.value_of(carry.value(o)) for o in carried]
        frame = carry.enter(carried) if carry is not None else None
        ctxs, results = [], []
        found: list = []
        try:
            for name in ("cond", "body"):
                self._loop_part(s, name, names, init_values, carried, carried_init, ctxs, results)
        finally:
            if frame is not None:
                found = carry.leave(frame)
        if found:                    # state the body changes that this attempt did not carry: compile again
            raise CarryMore(found)
        extra = self._unify_captures(ctxs, leading=len(names) + len(carried))
        cond_ctx, body_ctx = ctxs
        cond_ctx.graph.output(results[0])
        passthrough = [body_ctx.graph.placeholders[len(names) + len(carried) + i].out for i in range(len(extra))]
        body_ctx.graph.output(results[1] + passthrough)
        g = self.c.ctx.graph
        g.current_line = self.c.line
        outs = g.while_loop(cond_ctx.graph, body_ctx.graph, init_values + carried_init + extra)
        for n, v in zip(names, outs):
            self.env[n] = self.c.shadow(v)
        return [self.c.shadow(v) for v in outs[len(names):len(names) + len(carried)]]

    def _loop_part(self, s, name, names, init_values, carried, carried_init, ctxs, results) -> None:
        """The loop's cond or body sub-graph, its placeholders the loop variables then the carried state."""
        with self._branch(name, ctxs) as ctx:
            for n, v in zip(names, init_values):
                p = ctx.graph.placeholder(n, v.shape, v.dtype)
                self.c.home[p.id] = ctx.graph
                self.env[n] = self.c.shadow(p)
            shadows = []
            for k, v in enumerate(carried_init):
                p = ctx.graph.placeholder(v.name or f"carried {k}", v.shape, v.dtype)
                self.c.home[p.id] = ctx.graph
                shadows.append(self.c.shadow(p))
            if self.c.carry is not None:
                self.c.carry.bind(carried, shadows)
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
                                          f"{val.dtype}{list(val.shape)} inside the loop; it must keep its shape",
                                       loop_limit=True)
                    out.append(val)
                for o, v0 in zip(carried, carried_init):
                    val = self._as_value(self.c.carry.current(o), s)
                    if val.shape != v0.shape or val.dtype != v0.dtype:
                        raise self.err(s, f"a value the loop changes goes from {v0.dtype}{list(v0.shape)} to "
                                          f"{val.dtype}{list(val.shape)}; it must keep its shape", loop_limit=True)
                    out.append(val)
                results.append(out)
