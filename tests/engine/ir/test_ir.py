"""The IR: builder, printer, verifier, interpreter and run-record form."""
import numpy as np
import pytest

import engine  # noqa: F401  (registers ops)
from engine.ir import Graph, VerifyError, evaluate, run, verify
from engine.record.graph_json import graph_to_record


def small_graph():
    g = Graph("f")
    x = g.placeholder("x", (2, 3))
    w = g.placeholder("fc.weight", (3,), role="param")
    z = g.call("add", g.call("mul", x, w), 1.0)
    then_g, else_g = g.subgraph("then"), g.subgraph("else")
    a = then_g.placeholder("z", z.shape, z.dtype)
    then_g.output(then_g.call("tanh", a))
    b = else_g.placeholder("z", z.shape, z.dtype)
    else_g.output(else_g.call("neg", b))
    (r,) = g.cond(g.call("gt", g.call("sum", z), 0.0), then_g, else_g, [z])
    g.output(g.call("sum", r, dim=(1,), keepdim=False))
    return g


def test_builder_infers_specs_and_prints_canonical_text():
    g = small_graph()
    verify(g)
    text = str(g)
    assert "graph f(%0 : f32[2,3] x, %1 : f32[3] param fc.weight):" in text
    assert "%2 : f32[2,3] = mul(%0, %1)" in text
    assert "sum(%12, dim=(1,), keepdim=False)" in text
    assert g.outputs[0].shape == (2,)


def test_interpreter_takes_both_branches():
    g = small_graph()
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    w = np.ones(3, np.float32)
    (out,) = run(g, [x, w])
    np.testing.assert_allclose(out, np.tanh(x * w + 1).sum(1), rtol=1e-6)
    (out,) = run(g, {"x": -x - 5, "fc.weight": w})
    np.testing.assert_allclose(out, (-(-x - 5 + 1)).sum(1), rtol=1e-6)


def test_copy_keeps_ids_and_text():
    g = small_graph()
    h = g.copy()
    verify(h)
    assert str(h) == str(g)
    assert h.nodes[2] is not g.nodes[2]


def test_verifier_rejects_use_before_definition():
    g = Graph()
    x = g.placeholder("x", (2,))
    y = g.call("relu", x)
    z = g.call("neg", y)
    g.output(z)
    g.nodes.remove(y.producer)
    g.nodes.insert(len(g.nodes) - 1, y.producer)
    with pytest.raises(VerifyError, match="before"):
        verify(g)


def test_verifier_rejects_wrong_shape():
    g = Graph()
    x = g.placeholder("x", (2, 3))
    y = g.call("sum", x, dim=(1,), keepdim=False)
    g.output(y)
    y.producer.attrs["keepdim"] = True
    with pytest.raises(VerifyError, match="infers f32\\[2,1\\]"):
        verify(g)


def test_verifier_rejects_mismatched_branches():
    g = Graph()
    x = g.placeholder("x", (2,))
    t, e = g.subgraph("then"), g.subgraph("else")
    t.output(t.call("sum", t.placeholder("x", (2,))))
    e.output(e.placeholder("x", (2,)))
    g.cond(g.call("gt", g.call("sum", x), 0.0), t, e, [x])
    g.output(x)
    with pytest.raises(VerifyError, match="returns"):
        verify(g)


def test_while_loop_counts():
    g = Graph()
    n = g.placeholder("n", (), np.int64)
    c = g.subgraph("cond")
    i, acc = c.placeholder("i", (), np.int64), c.placeholder("acc", (), np.int64)
    c.output(c.call("lt", i, 5))
    b = g.subgraph("body")
    i2, acc2 = b.placeholder("i", (), np.int64), b.placeholder("acc", (), np.int64)
    b.output(b.call("add", i2, 1), b.call("add", acc2, i2))
    outs = g.while_loop(c, b, [n, g.constant(np.int64(0))])
    g.output(outs[1])
    verify(g)
    assert [o.id for o in outs] == [outs[0].id, outs[0].id + ".1"]
    assert run(g, [np.int64(0)])[0] == 0 + 1 + 2 + 3 + 4


def test_record_has_contract_fields():
    g = small_graph()
    env = evaluate(g, [np.ones((2, 3), np.float32), np.ones(3, np.float32)])
    rec = graph_to_record(g, env)
    by_id = {n["id"]: n for n in rec["nodes"]}
    assert by_id["%1"]["kind"] == "param" and by_id["%0"]["kind"] == "input"
    assert by_id["%3"]["kind"] == "const" and by_id["%3"]["value"]["data"] == 1.0
    assert by_id["%12"]["kind"] == "control" and set(by_id["%12"]["subgraphs"]) == {"then", "else"}
    assert by_id["%2"]["value"]["data"] == [[1.0] * 3] * 2
    assert {"src": "%0", "dst": "%2"}.items() <= rec["edges"][0].items()
    for n in rec["nodes"]:
        assert {"id", "op", "label", "kind", "shape", "dtype", "module", "line", "value", "group"} <= set(n)
