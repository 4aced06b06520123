"""The C operators (engine/native/fastops.c) against the Python ones they replace: same values, same
recorded graph, same errors, in every case the C path takes and in the cases it hands back."""
from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import engine
from engine import autograd, native
from engine.hooks import OP_APPLIED
from engine.nn import Parameter
from engine.tensor import Tensor

tensor_module = sys.modules["engine.tensor"]     # `engine.tensor` the attribute is torch.tensor's twin

OPERATORS = {"__add__": "add", "__sub__": "sub", "__mul__": "mul", "__truediv__": "div", "__matmul__": "matmul",
             "__gt__": "gt", "__lt__": "lt", "__ge__": "ge", "__le__": "le", "__eq__": "eq", "__ne__": "ne"}

pytestmark = pytest.mark.skipif(tensor_module._native is None, reason=f"native operators {native.status()}")


def both_ways(dunder: str, make_inputs):
    """Run `a <op> b` through the installed operator and through the Python reference, each on its
    own fresh inputs; return ((inputs, out or exception), (inputs, out or exception))."""
    results = []
    for operator in (getattr(Tensor, dunder), tensor_module._python_binary_operator(OPERATORS[dunder])):
        a, b = make_inputs()
        try:
            results.append(((a, b), operator(a, b)))
        except Exception as exc:       # noqa: BLE001  (the errors themselves are compared)
            results.append(((a, b), exc))
    return results


def describe(inputs, out) -> dict:
    """What a user or the engine can see of one result, with the inputs named by position."""
    if isinstance(out, Exception):
        return {"error": type(out).__name__, "message": str(out)}
    if not isinstance(out, Tensor):
        return {"value": out}
    fields = {"value": repr(out.array.tolist()), "dtype": str(out.array.dtype), "type": type(out.array).__name__,
              "requires_grad": out.requires_grad, "version": out._version}
    node = out.grad_fn
    if node is not None:
        edges = []
        for inp, edge in zip(inputs, node.edges):
            if edge is None:
                edges.append(None)
            elif edge is inp.grad_fn:
                edges.append("grad_fn of the input")
            else:
                assert isinstance(edge, autograd.AccumulateGrad) and edge.variable is inp
                edges.append("AccumulateGrad of the input")
        fields.update(grad_fn=type(node).__name__, saved=[s is i for s, i in zip(node.saved, inputs)],
                      out_data=node.out_data is out.array, edges=edges, versions=node.versions,
                      referent=node() is out, node_dict=dict(vars(node)))
    return fields


def leaf(values, dtype=np.float32, grad=True):
    return Tensor(np.asarray(values, dtype=dtype), requires_grad=grad)


def graph_input(values):
    """A non-leaf: its grad_fn is an edge of the op that reads it."""
    return leaf(values) * 1.5


CASES = {
    "two leaves": lambda: (leaf([1.0, 2.0, 3.0]), leaf([4.0, 5.0, 6.0])),
    "non-leaf and constant": lambda: (graph_input([1.0, -2.0]), leaf([3.0, 4.0], grad=False)),
    "constant and non-leaf": lambda: (leaf([3.0, 4.0], grad=False), graph_input([1.0, -2.0])),
    "broadcast": lambda: (leaf(np.arange(3.0).reshape(3, 1)), leaf(np.arange(4.0).reshape(1, 4))),
    "no grad anywhere": lambda: (leaf([1.0, 2.0], grad=False), leaf([3.0, 5.0], grad=False)),
    "0-d tensors (numpy returns a scalar)": lambda: (leaf(2.0), leaf(3.0)),
    "float64": lambda: (leaf([1.0, 2.0], np.float64), leaf([0.5, 0.25], np.float64)),
    "int64": lambda: (leaf([7, 8], np.int64, grad=False), leaf([2, 3], np.int64, grad=False)),
    "mixed dtypes (Python path)": lambda: (leaf([1.0, 2.0]), leaf([1.0, 3.0], np.float64)),
    "int and float (Python path)": lambda: (leaf([1, 2], np.int64, grad=False), leaf([0.5, 2.0])),
    "Python scalar (Python path)": lambda: (leaf([1.0, 2.0]), 3),
    "Parameter (Python path)": lambda: (Parameter(Tensor(np.ones(2, np.float32))), leaf([2.0, 3.0])),
    "shapes that don't broadcast": lambda: (leaf([1.0, 2.0, 3.0]), leaf([1.0, 2.0])),
    "matrices": lambda: (leaf(np.arange(6.0).reshape(2, 3)), leaf(np.arange(6.0).reshape(3, 2))),
}


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("dunder", OPERATORS)
def test_same_result_and_graph(dunder, case):
    if dunder == "__matmul__" and case not in ("matrices", "two leaves", "float64", "shapes that don't broadcast"):
        return
    if case == "matrices" and dunder != "__matmul__":
        return
    (native_inputs, native_out), (python_inputs, python_out) = both_ways(dunder, CASES[case])
    assert describe(native_inputs, native_out) == describe(python_inputs, python_out)


@pytest.mark.parametrize("dunder", ["__add__", "__mul__", "__truediv__"])
def test_backward_gives_the_same_gradients(dunder):
    grads = []
    for operator in (getattr(Tensor, dunder), tensor_module._python_binary_operator(OPERATORS[dunder])):
        a, b = leaf([[1.0, 2.0], [3.0, 4.0]]), leaf([0.5, -1.5])
        out = operator(operator(a, b), b)
        out.sum().backward()
        grads.append((a.grad.array.tolist(), b.grad.array.tolist()))
    assert grads[0] == grads[1]


def test_no_grad_records_nothing():
    a, b = leaf([1.0]), leaf([2.0])
    with engine.no_grad():
        out = a * b
    assert out.requires_grad is False and out.grad_fn is None


def test_changed_input_keeps_its_version_and_backward_refuses():
    a = leaf([1.0, 2.0])
    b = a * 2.0
    b.add_(1.0)                  # b is now at version 1: the node that saves it keeps that
    c = b * b
    assert c.grad_fn.versions == (1, 1)
    b.mul_(3.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        c.sum().backward()


def test_nodes_are_numbered_in_order():
    a, b = leaf([1.0]), leaf([2.0])
    first, second = a * b, a + b
    assert second.grad_fn.seq > first.grad_fn.seq


def test_observers_see_each_op_and_their_errors_propagate():
    seen = []

    def observe(op, inputs, attrs, out):
        seen.append((op.name, inputs, attrs, out))

    a, b = leaf([1.0]), leaf([2.0])
    OP_APPLIED.append(observe)
    try:
        out = a * b
    finally:
        OP_APPLIED.remove(observe)
    assert len(seen) == 1 and seen[0][0] == "mul" and seen[0][1][0] is a and seen[0][1][1] is b
    assert seen[0][2] == {} and seen[0][3] is out

    def refuse(op, inputs, attrs, out):
        raise ValueError("observer refused")

    OP_APPLIED.append(refuse)
    try:
        with pytest.raises(ValueError, match="observer refused"):
            a + b
    finally:
        OP_APPLIED.remove(refuse)


def test_a_half_built_tensor_raises_as_in_python():
    broken = object.__new__(Tensor)
    with pytest.raises(AttributeError):
        broken * leaf([1.0])


def test_without_the_native_module_the_python_operators_run():
    """DAGSCOPE_NATIVE=0 (or no compiler): same program, same output, Python operators."""
    program = textwrap.dedent("""
        import numpy as np
        from engine import native, tensor
        from engine.tensor import Tensor
        x = Tensor(np.array([1.0, 2.0], np.float32), requires_grad=True)
        y = (x * x + x) / 2
        y.sum().backward()
        print(native.status(), type(Tensor.__mul__).__name__, type(Tensor.__dict__["requires_grad"]).__name__)
        try:
            y.requires_grad = False
        except RuntimeError as e:
            refused = str(e)
        print(y.grad_fn.name(), x.grad.array.tolist(), refused)
    """)
    lines = []
    for flag in ("0", "1"):
        env = dict(os.environ, DAGSCOPE_NATIVE=flag)
        proc = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env=env,
                              cwd=pathlib.Path(__file__).resolve().parents[3],
                              timeout=120)
        assert proc.returncode == 0, proc.stderr
        lines.append(proc.stdout.splitlines())
    assert lines[0][0] == "off: DAGSCOPE_NATIVE=0 function property"
    assert lines[1][0] == "on method_descriptor CheckedSlot"
    assert lines[0][1] == lines[1][1]
    assert lines[0][1].startswith("DivBackward0 [1.5, 2.5] you can only change requires_grad flags of leaf")


def test_nodes_note_the_same_user_line_and_module_both_ways():
    """While a recorder runs, a node made by the C operator notes the user's line and nn.Module
    path exactly as the Python operator's does (the page places nodes by them)."""
    from engine import nn_context, record
    user_code = compile(textwrap.dedent("""
        def ops(operator, a, b):
            c = operator(a, b)
            return helper(operator, c, b)

        def helper(operator, c, b):
            return operator(c, b)
    """), record.USER_FILENAME, "exec")
    namespace = {}
    exec(user_code, namespace)
    seen = []
    for operator in (Tensor.__mul__, tensor_module._python_binary_operator("mul")):
        with record.use_recorder(record.Recorder()):
            nn_context.push("encoder.fc1")
            try:
                out = namespace["ops"](operator, leaf([1.0, 2.0]), leaf([3.0, 4.0]))
            finally:
                nn_context.pop()
            inner = out.grad_fn.edges[0]
            seen.append([(inner.line, inner.module), (out.grad_fn.line, out.grad_fn.module)])
    assert seen[0] == seen[1] == [(3, "encoder.fc1"), (7, "encoder.fc1")]
    outside = leaf([1.0]) * leaf([2.0])       # no recorder: nothing noted
    assert (outside.grad_fn.line, outside.grad_fn.module) == (None, None)


UNARY_INPUTS = {
    "leaf": lambda: leaf([0.5, -1.5, 2.0]),
    "non-leaf": lambda: graph_input([0.5, -1.5, 2.0]),
    "no grad": lambda: leaf([0.5, -1.5, 2.0], grad=False),
    "float64": lambda: leaf([0.25, -3.0], np.float64),
    "int64 (the forward promotes)": lambda: leaf([1, -2, 3], np.int64, grad=False),
    "0-d": lambda: leaf(-0.75),
    "changed in place": lambda: graph_input([1.0, 4.0]).add_(1.0),
}


@pytest.mark.parametrize("case", UNARY_INPUTS)
@pytest.mark.parametrize("method", sorted(tensor_module.UNARY_METHODS))
def test_unary_methods_same_result_and_graph(method, case):
    name = tensor_module.UNARY_METHODS[method]
    assert type(Tensor.__dict__[method]).__name__ == "method_descriptor"
    seen = []
    for run in (lambda t: getattr(Tensor, method)(t), lambda t: tensor_module.apply(name, t)):
        x = UNARY_INPUTS[case]()
        try:
            seen.append(describe((x,), run(x)))
        except Exception as exc:       # noqa: BLE001  (the errors themselves are compared)
            seen.append(describe((x,), exc))
    assert seen[0] == seen[1]


def test_unary_methods_backward_and_no_grad():
    x = leaf([0.5, 1.5])
    x.tanh().exp().relu().sum().backward()
    want = leaf([0.5, 1.5])
    tensor_module.apply("relu", tensor_module.apply("exp", tensor_module.apply("tanh", want))).sum().backward()
    assert x.grad.array.tolist() == want.grad.array.tolist()
    with engine.no_grad():
        assert x.sigmoid().grad_fn is None and x.sigmoid().requires_grad is False
