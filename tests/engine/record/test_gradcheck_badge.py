"""The per-leaf numerical gradient check that the recorder attaches to the first backward."""
import dataclasses

import pytest

from engine.record.gradcheck import MAX_REL_ERR
from engine.ops import OPS

CODE = """import torch
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
w = torch.tensor([[0.5, -1.0, 2.0], [0.1, 0.2, 0.3]], requires_grad=True)
y = torch.tanh(w @ x)
z = (y * y).sum()
z.backward()
"""


def _checks(record):
    return {n["label"]: n.get("gradcheck") for n in record["graphs"][0]["forward"]["nodes"]
            if n["kind"] in ("input", "param")}


def test_correct_gradients_pass(run):
    checks = _checks(run(CODE, gradcheck=True))
    assert checks["x"]["ok"] and checks["w"]["ok"]
    assert checks["x"]["max_rel_err"] < MAX_REL_ERR / 10 and checks["w"]["max_rel_err"] < MAX_REL_ERR / 10


def test_correct_float32_gradients_in_tanh_saturation_pass(run):
    # 1 - tanh(x)^2 in float32 is a few ulps of 1: the check's bound leaves room for that, not for 1%.
    checks = _checks(run(CODE.replace("torch.tanh(w @ x)", "torch.tanh(7.0 * (w @ x))"), gradcheck=True))
    assert checks["x"]["ok"] and checks["w"]["ok"]


def test_a_wrong_vjp_is_caught(run, monkeypatch):
    # (CODE calls torch.tanh, which looks the op up in the registry on each call: the Tensor methods
    # and operators bind their OpDef when engine.tensor loads, so a replaced entry is not theirs)
    tanh = OPS["tanh"]
    wrong = dataclasses.replace(tanh, vjp=lambda F, g, x, out: (F.mul(g, out),))  # not 1 - tanh^2
    monkeypatch.setitem(OPS, "tanh", wrong)
    checks = _checks(run(CODE, gradcheck=True))
    assert not checks["x"]["ok"] and not checks["w"]["ok"]


@pytest.mark.parametrize("scale", [1.01, 0.99])
def test_a_subtly_wrong_vjp_is_caught(run, monkeypatch, scale):
    # tanh's true gradient 1% off: the badge must not call that ok (at 2e-2 it did).
    tanh = OPS["tanh"]
    scaled = dataclasses.replace(tanh, vjp=lambda F, g, x, out: tuple(F.mul(v, scale) for v in tanh.vjp(F, g, x, out)))
    monkeypatch.setitem(OPS, "tanh", scaled)
    checks = _checks(run(CODE, gradcheck=True))
    assert not checks["x"]["ok"] and not checks["w"]["ok"]
    assert checks["x"]["max_rel_err"] > MAX_REL_ERR


def test_the_check_runs_only_on_request(run):
    assert all(v is None for v in _checks(run(CODE)).values())


def test_a_check_that_cannot_run_says_why_and_the_run_goes_on(run, monkeypatch):
    from engine.record import gradcheck

    def broken(*args, **kwargs):
        raise RuntimeError("no replay")
    monkeypatch.setattr(gradcheck, "check", broken)
    record = run(CODE, gradcheck=True)
    assert record["ok"], record["error"]
    assert all(check is None for check in _checks(record).values())
    assert record["graphs"][0]["warnings"] == ["the gradient check could not run: RuntimeError: no replay"]
