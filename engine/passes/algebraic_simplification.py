"""Algebraic simplification: rewrite rules keyed by op name (x*1 -> x, x+0 -> x, neg(neg(x)) -> x,
transpose(transpose(x)) -> x, reshape(reshape(x)) -> reshape(x), ...). A rule fires only when the
result has exactly the node's shape and dtype, so no rewrite can change what the graph computes."""
from __future__ import annotations

import numpy as np

from engine.ir.graph import CALL, Graph, Node, Value
from engine.passes.base import PassResult, Reason, constant_of, reason, rewrite_every_graph


def _all_equal(v: Value, x) -> bool:
    c = constant_of(v)
    return c is not None and c.size > 0 and bool(np.all(c == x))


def _same_spec(a: Value, b: Value) -> bool:
    return tuple(a.shape) == tuple(b.shape) and a.dtype == b.dtype


def _identity(node: Node, operand_index: int, neutral, formula: str):
    """x op neutral -> x, when `neutral` sits at the other operand and x already has the output spec."""
    x, c = node.inputs[operand_index], node.inputs[1 - operand_index]
    if _all_equal(c, neutral) and _same_spec(x, node.out):
        return x, formula
    return None


def mul_rule(g: Graph, node: Node):
    a, b = node.inputs
    for i, s in ((0, "x*1 -> x"), (1, "1*x -> x")):
        hit = _identity(node, i, 1, s)
        if hit:
            return hit
    # x*0 -> 0 only for integer/bool x: for floats NaN*0 and inf*0 are NaN, and we do not know
    # that x is finite, so the rewrite would change results.
    for x, c in ((a, b), (b, a)):
        if _all_equal(c, 0) and node.out.dtype.kind in "iub":
            zero = g.constant(np.zeros((), node.out.dtype))
            return g.call("expand", zero, shape=tuple(node.out.shape)) if node.out.shape else zero, reason("zero_integers")
    return None


def add_rule(g: Graph, node: Node):
    return _identity(node, 0, 0, "x+0 -> x") or _identity(node, 1, 0, "0+x -> x")


def sub_rule(g: Graph, node: Node):
    return _identity(node, 0, 0, "x-0 -> x")


def div_rule(g: Graph, node: Node):
    return _identity(node, 0, 1, "x/1 -> x")


def _producer(v: Value, op: str) -> Node | None:
    p = v.producer
    return p if p is not None and p.kind == CALL and p.op == op else None


def neg_rule(g: Graph, node: Node):
    inner = _producer(node.inputs[0], "neg")
    if inner and _same_spec(inner.inputs[0], node.out):
        return inner.inputs[0], "neg(neg(x)) -> x"
    return None


def transpose_rule(g: Graph, node: Node):
    inner = _producer(node.inputs[0], "transpose")
    if inner and _same_spec(inner.inputs[0], node.out):
        nd = node.out.ndim
        mine = {node.attrs["dim0"] % nd, node.attrs["dim1"] % nd}
        theirs = {inner.attrs["dim0"] % nd, inner.attrs["dim1"] % nd}
        if mine == theirs:
            return inner.inputs[0], "transpose(transpose(x)) -> x"
    return None


def permute_rule(g: Graph, node: Node):
    dims = tuple(node.attrs["dims"])
    if dims == tuple(range(len(dims))):
        return node.inputs[0], reason("permute_identity")
    inner = _producer(node.inputs[0], "permute")
    if inner:
        composed = tuple(inner.attrs["dims"][d] for d in dims)
        if composed == tuple(range(len(composed))):
            return inner.inputs[0], "permute(permute(x)) -> x"
        node.inputs = [inner.inputs[0]]
        node.attrs = {"dims": composed}
        return node.out, reason("permute_one")
    return None


def reshape_rule(g: Graph, node: Node):
    x = node.inputs[0]
    if _same_spec(x, node.out):
        return x, reason("reshape_same")
    inner = _producer(x, "reshape")
    if inner:
        node.inputs = [inner.inputs[0]]          # a reshape only depends on the element order
        node.attrs = {"shape": tuple(node.out.shape)}
        if _same_spec(inner.inputs[0], node.out):
            return inner.inputs[0], "reshape(reshape(x)) -> x"
        return node.out, reason("reshape_one")
    return None


def same_shape_rule(why: Reason):
    def rule(g: Graph, node: Node):
        return (node.inputs[0], why) if _same_spec(node.inputs[0], node.out) else None
    return rule


RULES = {
    "mul": mul_rule, "add": add_rule, "sub": sub_rule, "div": div_rule, "neg": neg_rule,
    "transpose": transpose_rule, "permute": permute_rule, "reshape": reshape_rule,
    "expand": same_shape_rule(reason("expand_same")),
    "sum_to_size": same_shape_rule(reason("sum_to_size_same")),
}


def algebraic_simplification(graph: Graph) -> PassResult:
    return rewrite_every_graph(graph, _simplify)


def _simplify(g: Graph, result: PassResult) -> None:
    for node in list(g.nodes):
        rule = RULES.get(node.op) if node.kind == CALL else None
        if rule is None:
            continue
        with g.inserting_before(node):
            hit = rule(g, node)
        if hit is None:
            continue
        replacement, why = hit
        if replacement is not node.out:
            g.replace_uses(node.out, replacement)   # the node itself is left for DCE
            result.replace(node.id, replacement)
        result.note(node.id, why)
