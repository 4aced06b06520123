"""`.data` is PyTorch's: a tensor sharing storage, outside every graph (the numpy array is `.array`)."""

CODE = """import torch
w = torch.tensor([1.0, 2.0], requires_grad=True)
(w * w).sum().backward()
w.data -= 0.5 * w.grad
print(w)
w.grad.data.zero_()
print(w.grad)
print(w.data)
w.data.fill_(3.0)
print(w)
print(type(w.data).__name__, w.data.requires_grad, w.data.grad_fn)
w.data = torch.tensor([7.0, 8.0])
print(w)
"""


def test_data_is_a_tensor_sharing_storage(run):
    rec = run(CODE)
    assert rec["ok"], rec["error"]
    assert rec["stdout"].splitlines() == [
        "tensor([0., 0.], requires_grad=True)",
        "tensor([0., 0.])",
        "tensor([0., 0.])",
        "tensor([3., 3.], requires_grad=True)",
        "Tensor False None",
        "tensor([7., 8.], requires_grad=True)",
    ]


def test_changes_through_data_are_not_recorded(run):
    rec = run("import torch\nx = torch.ones(2, requires_grad=True)\ny = x * x\nx.data.mul_(3)\n"
              "y.sum().backward()\nprint(x.grad)\n")
    # As in PyTorch: the graph saved x's storage, which .data changed behind autograd's back.
    assert rec["ok"] and rec["stdout"] == "tensor([6., 6.])\n"
