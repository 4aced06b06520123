"""engine/capture/specialisation.py: the one cache engine.function, torch.compile, torch.jit.script
and tf.function keep their graphs in, its signature keys and its retrace reasons (worded as
PyTorch's guard failures)."""
import numpy as np

import engine
from engine import nn
from engine.capture.specialisation import (FREQUENT, GLOBAL, Specialisations, retrace_reason, signature,
                                           tensor_part, value_part)


def key(*values, names=("x", "k"), **options):
    return signature(list(names), list(values), **options)


def reason_between(old, new):
    return retrace_reason(old, new)


def test_tensors_are_keyed_by_shape_and_dtype_python_values_by_value():
    assert key(engine.ones(2), 2.0) == key(engine.zeros(2), 2.0)
    assert key(engine.ones(2), 2.0) != key(engine.ones(3), 2.0)
    assert key(engine.ones(2), 2.0) != key(engine.ones(2).double(), 2.0)
    assert key(engine.ones(2), 2) != key(engine.ones(2), 2.0) != key(engine.ones(2), True)
    assert key(engine.ones(2), [1, 2]) == key(engine.ones(2), [1, 2])       # a new list with equal contents fits


def test_objects_are_keyed_by_identity():
    class Config:
        pass
    a, b = Config(), Config()
    assert key(engine.ones(1), a) == key(engine.ones(1), a) != key(engine.ones(1), b)
    assert reason_between(key(engine.ones(1), a), key(engine.ones(1), b)) == "k is another Config object"


def test_requires_grad_and_bools_only_where_asked():
    x, w = engine.ones(2), engine.ones(2, requires_grad=True)
    assert key(x, 1) == key(w, 1)
    assert key(x, 1, requires_grad=True) != key(w, 1, requires_grad=True)
    assert key(x, True, bool_inputs=True) == key(x, False, bool_inputs=True)   # a bool input stays an input
    assert key(x, True) != key(x, False)


def test_reasons_in_pytorchs_words():
    x2, x3, x23 = engine.ones(2), engine.ones(3), engine.ones(2, 3)
    assert reason_between(key(x2, 1), key(x3, 1)) == "tensor 'x' size mismatch at index 0. expected 2, actual 3"
    assert reason_between(key(x2, 1), key(x23, 1)) == "tensor 'x' rank mismatch. expected 1, actual 2"
    assert reason_between(key(x2, 1), key(x2.double(), 1)) == \
        "tensor 'x' dtype mismatch. expected float32, actual float64"
    w = engine.ones(2, requires_grad=True)
    assert reason_between(key(x2, 1, requires_grad=True), key(w, 1, requires_grad=True)) == \
        "tensor 'x' requires_grad mismatch. expected requires_grad=0"
    assert reason_between(key(x2, 1), key(x2, 3)) == "k == 1"
    assert reason_between(key(x2, 1), key(x2, x2)) == "type(k) mismatch. expected a Python value, actual Tensor"
    # every failing part, in signature order
    assert reason_between(key(x2, 1), key(x3, 2)) == \
        "tensor 'x' size mismatch at index 0. expected 2, actual 3; k == 1"
    grad_on = (("grad_mode", GLOBAL, True),)
    grad_off = (("grad_mode", GLOBAL, False),)
    assert reason_between(key(x2, 1, guards=grad_on), key(x2, 1, guards=grad_off)) == \
        "GLOBAL_STATE changed: grad_mode"


def test_module_state_parts():
    lin = nn.Linear(2, 3)
    old = (value_part("self.training", True), tensor_part("weight", lin.weight))
    lin.eval()
    assert retrace_reason(old, (value_part("self.training", False), tensor_part("weight", lin.weight))) == \
        "self.training == True"


def test_the_cache_explains_a_retrace_against_the_last_call():
    cache = Specialisations(record_limit=2)
    a, b, c = key(engine.ones(2), 1), key(engine.ones(3), 1), key(engine.ones(3), 2)
    assert cache.reason(a) is None and cache.recorded()
    cache.add(a, "graph a")
    cache.add(b, "graph b")
    assert cache.lookup(a) == "graph a" and cache.last == a
    assert cache.reason(c) == "tensor 'x' size mismatch at index 0. expected 2, actual 3; k == 1"
    assert not cache.recorded()           # a third entry is not shown in the run record
    cache.retraced(c, cache.reason(c))
    cache.add(c, "graph c")
    assert len(cache) == 3 and cache.newest() == "graph c"
    assert cache.retraces == [{"reason": "tensor 'x' size mismatch at index 0. expected 2, actual 3; k == 1",
                               "signature": ["f32[3]", "2"]}]
    assert cache.lookup(key(engine.ones(4), 1)) is None and cache.last == c     # a miss is not a call's entry


def test_messages_for_the_run_record():
    traced, compiled = Specialisations(), Specialisations(verb="recompiled")
    assert traced.note("k == 1") == "retraced: k == 1"
    assert compiled.warning("compiled f", "k == 1") == "compiled f recompiled: k == 1"
    for n in range(FREQUENT - 1):
        assert traced.frequent("tf.function f") is None
        traced.add(key(engine.ones(n + 1), 1), n)
    assert traced.frequent("tf.function f").startswith("5 traces of tf.function f: every new shape or Python value "
                                                       "retraces")


def test_every_front_end_keeps_its_graphs_in_one():
    f = engine.capture.function(lambda x, k: x * k)
    f(engine.ones(2), 2.0)
    f(engine.ones(3), 2.0)
    assert isinstance(f._cache, Specialisations) and f.experimental_get_tracing_count() == 2
    assert f.retraces[0]["reason"] == "tensor 'x' size mismatch at index 0. expected 2, actual 3"
    cf = engine.compile(lambda x: x * 2)
    cf(engine.ones(2))
    cf(engine.ones(2).double())
    assert isinstance(cf._cache, Specialisations)
    assert cf.retraces == [{"reason": "tensor 'x' dtype mismatch. expected float32, actual float64",
                            "signature": ["f64[2]"]}]
    s = engine.script(lambda x: x + 1)
    s(engine.ones(2))
    s(engine.ones(3))
    assert isinstance(s._cache, Specialisations) and len(s._cache) == 2
    np.testing.assert_allclose(s(engine.ones(3)).array, 2.0)
