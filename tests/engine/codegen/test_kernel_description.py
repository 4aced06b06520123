"""engine/codegen/description.py: kernels as plain data, rebuilt on the trusted side with every
field checked. The attr tables must name every attr the C rules read (or an op's attr would be
dropped on the way and its kernel compiled wrong), and literals keep their exact values."""
import math

import numpy as np
import pytest

from engine.codegen import c_render
from engine.codegen.c_render import C_EXPR, Ctx
from engine.codegen.description import (LIBRARY_ATTRS, REDUCTION_ATTRS, STEP_ATTRS, InvalidDescription,
                                        canonical, describe, rebuild)
from engine.codegen.kernel import Arg, Kernel, Literal, Load, Reduction, Step, Store
from engine.codegen.library_kernels import LIBRARY_OPS

F32, I32 = np.dtype(np.float32), np.dtype(np.int32)


class Spy(dict):
    """attrs that remember what a rule read."""

    def __init__(self, values):
        super().__init__(values)
        self.read = set()

    def get(self, key, default=None):
        self.read.add(key)
        return super().get(key, default)

    def __getitem__(self, key):
        self.read.add(key)
        return super().__getitem__(key)


ANY_ATTRS = {"nan": 0.0, "posinf": 1.0, "neginf": -1.0, "divisor": 2.0, "exponent": 3.5, "negative_slope": 0.1, "beta": 1.0, "threshold": 20.0,
             "min": -1.0, "max": 1.0, "bounds_are": "both", "value": 0.5, "approximate": "tanh", "p": 0.5}


@pytest.mark.parametrize("op", sorted(C_EXPR))
def test_every_attr_a_c_rule_reads_is_in_the_table(op):
    attrs = Spy(ANY_ATTRS)
    rule = C_EXPR[op]
    n = rule.__code__.co_argcount - 1 if not rule.__code__.co_flags & 0x04 else 2
    try:
        rule(Ctx(F32, attrs, [None] * n), *[f"a{i}" for i in range(n)])
    except (KeyError, TypeError):
        pass
    assert attrs.read <= set(STEP_ATTRS.get(op, {})), (op, attrs.read)


def test_every_reduction_and_library_attr_the_renderer_reads_is_in_the_tables():
    import inspect
    source = inspect.getsource(c_render._render_reduction)
    for name in ("p", "correction"):
        assert f'red.attrs.get("{name}"' in source
    assert set(REDUCTION_ATTRS) == {"norm", "var", "std"}
    assert set(LIBRARY_ATTRS) == LIBRARY_OPS


def _kernel(literal=1.5, dtype=F32, attrs=None, op="mul") -> Kernel:
    return Kernel("anything", (6,), (False,), [Arg("x", dtype, (6,))], [Arg("y", dtype, (6,))],
                  loads=[Load("a0", 0, (1,))],
                  steps=[Step("v0", "n1", op, ["a0", Literal(literal, dtype)], [dtype, dtype], attrs or {}, dtype,
                              "n1 = mul(x, 1.5)  | line 2: y = x * 1.5")],
                  stores=[Store(0, "v0", (1,))])


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, 1e-45, -0.0, 3.4028234663852886e38])
def test_float_literals_round_trip_exactly(value):
    import json
    (k,) = rebuild(json.loads(canonical(describe([_kernel(value)]))))
    got = k.steps[0].args[1].value
    assert (math.isnan(got) and math.isnan(value)) or (got == value and math.copysign(1, got) == math.copysign(1, value))


def test_rebuilt_kernels_carry_generated_names_and_no_comments():
    (k,) = rebuild(describe([_kernel()]))
    assert k.name == "k0" and k.node_ids == [] and k.steps[0].comment == "" and k.steps[0].node_id == ""
    assert "line 2" not in c_render.render_kernel(k) and "/*" not in c_render.render_kernel(k)


@pytest.mark.parametrize("value, message", [
    (1 << 31, "not a int32"), (1.5, "not a int32"), ("nan", "not a int32"), ("1; x", "not a number"),
])
def test_integer_literals_must_fit_their_dtype(value, message):
    d = describe([_kernel(7, I32)])
    d["kernels"][0]["steps"][0]["args"][1]["literal"] = value
    with pytest.raises(InvalidDescription, match=message):
        rebuild(d)


@pytest.mark.parametrize("attrs, message", [
    ({"approximate": "erf"}, "not one of none, tanh"),
    ({"approximate": None}, "not one of none, tanh"),
    ({"approximate": ["tanh"]}, "not one of none, tanh"),
    ({"dim": 1}, "unknown field 'dim'"),
])
def test_attrs_are_only_the_words_and_numbers_each_op_takes(attrs, message):
    d = describe([_kernel(op="gelu")])
    step = d["kernels"][0]["steps"][0]
    step.update(args=step["args"][:1], arg_dtypes=step["arg_dtypes"][:1], attrs=attrs)
    with pytest.raises(InvalidDescription, match=message):
        rebuild(d)


def test_a_reduction_whose_count_lies_is_refused():
    k = Kernel("r", (3, 4), (False, True), [Arg("x", F32, (3, 4))], [Arg("y", F32, (3,))],
               loads=[Load("a0", 0, (4, 1))])
    k.reduction = Reduction("n1", "mean", "a0", F32, F32, {}, 4, 0, (1, 0), "")
    rebuild(describe([k]))
    d = describe([k])
    d["kernels"][0]["reduction"]["count"] = 3
    with pytest.raises(InvalidDescription, match="count is not the number of elements reduced"):
        rebuild(d)


def test_a_reduction_output_too_small_for_its_kept_dims_is_refused():
    k = Kernel("r", (3, 4), (False, True), [Arg("x", F32, (3, 4))], [Arg("y", F32, (2,))],
               loads=[Load("a0", 0, (4, 1))])
    k.reduction = Reduction("n1", "sum", "a0", F32, F32, {}, 4, 0, (1, 0), "")
    with pytest.raises(InvalidDescription, match="the reduction's output reaches outside its buffer"):
        rebuild(describe([k]))


def test_a_layer_norm_weight_shorter_than_its_rows_is_refused():
    x = Arg("x", F32, (2, 8), (8, 1))
    k = Kernel("ln", (2, 8), (), [x, Arg("w", F32, (4,), (1,))], [Arg("y", F32, (2, 8))])
    k.library, k.library_attrs = "native_layer_norm", {"normalized_ndim": 1, "eps": 1e-5, "has_weight": True}
    k.library_strides = [(8, 1), (1,)]
    with pytest.raises(InvalidDescription, match="layer norm weight/bias of the wrong shape"):
        rebuild(describe([k]))
