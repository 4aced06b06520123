"""Every registered op, through the IR: one-op graphs verify, interpret as the op's forward, survive
every pass, and their graph-autodiff gradients equal eager autograd's (the registry's sample cases)."""
import numpy as np
import pytest

import engine  # noqa: F401
from tests.engine.op_cases import CASES
from engine.autodiff import joint_graph
from engine.capture.common import run_eager
from engine.ir import Graph, run, verify
from engine.ops import OPS
from engine.passes import run_pipeline
from engine.passes.pipeline import outputs_equal
from engine.tensor import Tensor

PARAMS = [pytest.param(name, i, case, id=f"{name}-{i}") for name in sorted(OPS) for i, case in enumerate(CASES.get(name, []))]


def one_op_graph(name, case) -> Graph:
    g = Graph(name)
    values = [g.placeholder(f"in{i}", a.shape, a.dtype) for i, a in enumerate(case.inputs)]
    g.output(g.call(name, *values, **case.attrs))
    return g


@pytest.mark.parametrize("name,index,case", PARAMS)
def test_op_through_ir_passes_and_autodiff(name, index, case):
    g = one_op_graph(name, case)
    verify(g)
    (out,) = run(g, case.inputs)
    want = OPS[name].run(*case.inputs, **case.attrs)
    assert outputs_equal([want], [out], rtol=1e-12, atol=0)
    result = run_pipeline(g)
    assert outputs_equal([want], run(result.graph, case.inputs), rtol=1e-12, atol=0)
    if not case.diff or not OPS[name].differentiable:
        return
    joint = joint_graph(g, wrt=[g.inputs[i].id for i in case.diff])
    verify(joint.graph)
    seed = np.random.default_rng(index).standard_normal(np.shape(want)).astype(want.dtype)
    grads = run(joint.graph, list(case.inputs) + [seed])[1:]
    tensors = [Tensor(a.copy()) for a in case.inputs]
    for i in case.diff:
        tensors[i].requires_grad_(True)
    (eager_out,) = run_eager(g, tensors)
    eager_out.backward(Tensor(seed))
    for i, got in zip(case.diff, grads):
        np.testing.assert_allclose(got, tensors[i].grad.array, rtol=1e-10, atol=1e-12, err_msg=f"grad of input {i}")
