"""`import torch` inside a run is Dagscope's, even in a process that imported something else as torch."""
import sys
import types


def test_a_real_torch_is_set_aside_during_a_run_and_restored(run, monkeypatch):
    real = types.ModuleType("torch")
    real.IS_REAL = True
    monkeypatch.setitem(sys.modules, "torch", real)
    rec = run("import torch\nprint(torch.__version__)\n")
    assert rec["stdout"].strip().endswith("+dagscope")
    assert sys.modules["torch"] is real


def test_unknown_submodules_are_unsupported(run):
    rec = run("import torch.fancy_thing\n")
    assert rec["error"]["kind"] == "unsupported" and "torch.fancy_thing" in rec["error"]["message"]


def test_dagscope_is_the_engine(run):
    rec = run("import dagscope as ds\nx = ds.tensor([1.0, 2.0], requires_grad=True)\n(x * x).sum().backward()\nprint(x.grad)\n")
    assert rec["stdout"] == "tensor([2., 4.])\n"
