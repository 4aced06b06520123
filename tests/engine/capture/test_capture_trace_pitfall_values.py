"""A trace that reads values through .tolist() or .numpy() warns that it froze them, as PyTorch does."""


def test_tolist_in_a_branch_warns(run):
    rec = run("import torch\n\ndef f(x):\n    if x.tolist()[0] > 0:\n        return x * 2\n    return x - 1\n\n"
              "t = torch.jit.trace(f, torch.tensor([1.0, 2.0]))\nprint(t(torch.tensor([-1.0, 2.0])))\n")
    assert rec["ok"], rec["error"]
    assert "Python list might cause the trace to be incorrect" in rec["stderr"]     # where Python warns
    assert rec["stdout"].strip().endswith("tensor([-2.,  4.])")     # the frozen branch, not x - 1


def test_numpy_in_a_scripted_function_is_refused_with_its_line(run):
    rec = run("import torch\n\n@torch.jit.script\ndef f(x):\n    if x.numpy()[0] > 0:\n        return x * 2\n"
              "    return x\n\nprint(f(torch.tensor([1.0])))\n")
    assert not rec["ok"]
    assert "NumPy array" in rec["error"]["message"]
