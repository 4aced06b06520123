"""What a JAX program leaves in the run record: a jitted function is a static graph of capture kind
"jit" with its jaxpr, passes, kernels and retrace reasons, which the server's schema accepts; a
jax.grad is a backward call with its forward and backward graphs."""
from __future__ import annotations

import json

from app.sandbox import record_schema
from engine.runner import run_user_code

PROGRAM = """import jax
import jax.numpy as jnp


@jax.jit
def f(x):
    return jnp.sum(jnp.tanh(x) * 2.0)


print(f(jnp.ones(3)), f(jnp.ones(4)))
print(jax.grad(lambda w: jnp.sum(jnp.sin(w) * w))(jnp.arange(3.0)))
"""


def test_a_jitted_function_is_a_static_jit_graph_with_its_jaxpr_passes_and_kernels():
    record = run_user_code(PROGRAM)
    assert record["error"] is None, record["error"]
    jits = [g for g in record["graphs"] if g.get("capture") == "jit"]
    assert [g["title"] for g in jits] == ["jax.jit f(f32[3]) trace #1", "jax.jit f(f32[4]) trace #2"]
    first, second = jits
    assert first["jaxpr"].startswith("{ lambda ; a:f32[3]. let") and "tanh a" in first["jaxpr"]
    assert "reduce_sum[axes=(0,) out_sharding=None]" in first["jaxpr"]
    assert first["retrace_reason"] == "first call: traced"
    assert second["retrace_reason"] == "retraced: tensor 'x' size mismatch at index 0. expected 3, actual 4"
    assert any("jax.jit f retraced" in w for w in record["warnings"])
    assert first["passes"] and first["kernels"] and first["backend"] in ("c", "numpy")
    assert first["backward"] is not None                  # the graph's backward, as for torch.compile
    checked = record_schema.validate(json.loads(json.dumps(record)), PROGRAM.count("\n") + 1, 100_000)
    assert [g.get("capture") for g in checked["graphs"]].count("jit") == 2, checked["warnings"]


def test_jax_grad_is_a_backward_call_with_forward_and_backward_graphs():
    record = run_user_code(PROGRAM)
    dynamic = [g for g in record["graphs"] if g["kind"] == "dynamic"]
    assert dynamic and "jax.grad()" in dynamic[0]["title"]
    assert dynamic[0]["forward"]["nodes"] and dynamic[0]["backward"]["nodes"]
    ops = [n["op"] for n in dynamic[0]["forward"]["nodes"]]
    assert "sin" in ops and "mul" in ops


VMAP_PROGRAM = """import jax
import jax.numpy as jnp

layer = jax.vmap(lambda v, w: jnp.tanh(w @ v), in_axes=(0, None))
for _ in range(3):
    out = layer(jnp.ones((5, 4)), jnp.ones((2, 4)))
print(out.shape)
"""


def test_a_vmapped_function_is_a_static_vmap_graph_with_its_batched_and_per_example_jaxprs():
    record = run_user_code(VMAP_PROGRAM)
    assert record["error"] is None and record["stdout"] == "(5, 2)\n", record["error"]
    vmaps = [g for g in record["graphs"] if g.get("capture") == "vmap"]
    assert len(vmaps) == 1                                   # its first call only
    g = vmaps[0]
    assert g["batch_size"] == 5 and g["title"] == "jax.vmap <lambda>: a batch of 5"
    assert g["title_message"] == {"key": "title.vmap", "params": {"name": "<lambda>", "n": 5}}
    assert g["jaxpr"].startswith("{ lambda ; a:f32[5,4] b:f32[2,4]. let") and "dot_general" in g["jaxpr"]
    assert g["unbatched_jaxpr"].startswith("{ lambda ; a:f32[4] b:f32[2,4]. let")
    ops = [n["op"] for n in g["forward"]["nodes"]]
    assert ops.count("einsum") == 1 and ops.count("tanh") == 1        # one batched graph, not five
    checked = record_schema.validate(json.loads(json.dumps(record)), VMAP_PROGRAM.count("\n") + 1, 100_000)
    assert [x.get("capture") for x in checked["graphs"]].count("vmap") == 1, checked["warnings"]


AT_SET_PROGRAM = """import jax
import jax.numpy as jnp


@jax.jit
def f(x, i):
    return x.at[i].set(5.0) * 2, jnp.float32(7.0)


print(f(jnp.arange(4.0), 2))
print(f(jnp.arange(4.0), 1))
"""


def test_a_jitted_at_set_with_a_traced_index_runs_compiled():
    # a 0-d constant reached the compiled code as shape (1,): index_put's value failed, a 0-d output was 1-d
    record = run_user_code(AT_SET_PROGRAM)
    assert record["error"] is None and record["warnings"] == [], (record["error"], record["warnings"])
    assert record["stdout"] == ("(Array([ 0.,  2., 10.,  6.], dtype=float32), Array(7., dtype=float32))\n"
                                "(Array([ 0., 10.,  4.,  6.], dtype=float32), Array(7., dtype=float32))\n")


def test_the_jaxpr_of_a_gradient_is_written_in_jax_primitives():
    """make_jaxpr(grad(f)) prints the forward and the backward equations; the engine's backward-only ops
    (tanh_backward, sum_to_size, slice_backward ...) as the JAX equations they are (the order of the
    backward equations is the engine's, not JAX's linearize-then-transpose order)."""
    import re

    import engine.compat.jax as jax
    from engine.compat.jax import numpy as jnp

    def loss(v):
        return jnp.sum(jnp.tanh(v[1:]) ** 2) + jnp.sum(v[0] * jax.nn.sigmoid(v) + jax.nn.relu(v - 1.0))
    text = str(jax.make_jaxpr(jax.grad(loss))(jnp.array([0.5, 1.5, 2.0])))
    prims = set(re.findall(r"= ([a-z_\-]+)[\[ ]", text))
    assert prims.isdisjoint({"tanh_backward", "sigmoid_backward", "threshold_backward", "sum_to_size",
                             "slice_backward", "select_backward", "masked_fill"}), prims
    assert re.search(r"\n    _:f32\[\] = add ", text)           # the loss itself: read by nothing
    assert {"pad", "select_n", "logistic", "tanh"} <= prims


LOOPS_PROGRAM = """import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def cumulative(xs):
    carry, ys = lax.scan(lambda c, r: (c * jnp.tanh(r) + r, jnp.sum(c)), jnp.ones(2), xs)
    return jnp.sum(carry) + jnp.sum(ys)


@jax.jit
def step(w):
    return jax.grad(lambda v: jnp.sum(lax.cond(jnp.sum(v) > 0, jnp.sin, jnp.cos, v)))(w)


@jax.jit
def tangent(w):
    return jax.jvp(jnp.tanh, (w,), (jnp.ones(3),))[1]


print(cumulative(jnp.arange(6.0).reshape(3, 2)), step(jnp.ones(3)), tangent(jnp.ones(3)))
"""


def test_scan_a_traced_cond_under_grad_and_a_jvp_are_jit_graphs_with_their_jaxprs():
    record = run_user_code(LOOPS_PROGRAM)
    assert record["error"] is None and not record["warnings"], (record["error"], record["warnings"])
    jits = {g["extra_function"] if "extra_function" in g else g["function"]: g for g in record["graphs"]
            if g.get("capture") == "jit"}
    assert set(jits) == {"cumulative", "step", "tangent"}
    assert "= scan[" in jits["cumulative"]["jaxpr"] and "length=3" in jits["cumulative"]["jaxpr"]
    assert jits["step"]["jaxpr"].count("= cond[") == 2          # the forward's and the backward's
    assert "tanh a" in jits["tangent"]["jaxpr"]
    assert all(g["backend"] in ("c", "numpy") for g in jits.values())
    checked = record_schema.validate(json.loads(json.dumps(record)), LOOPS_PROGRAM.count("\n") + 1, 100_000)
    assert [g.get("capture") for g in checked["graphs"]].count("jit") == 3, checked["warnings"]
