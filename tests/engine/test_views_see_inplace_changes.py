"""Views see later in-place changes of their base, as PyTorch's share its memory: values and
gradients after `z.add_(1)` or `b[0] *= 3` on a sibling view, checked against outputs stored from
PyTorch 2.13 (and against live PyTorch when it is installed)."""
from __future__ import annotations

import contextlib
import io

import pytest

# program -> (code after `import torch`, what PyTorch 2.13 printed)
CASES = {
    "sibling_slices": (
        'x = torch.tensor([1., 2., 3., 4.], requires_grad=True)\nz = x * 1\na = z[0:2]\nb = z[1:3]\nb[0] *= 3\nprint(a, b, z)\n(a * torch.tensor([1., 10.])).sum().backward()\nprint(x.grad)\n',
        'tensor([1., 6.], grad_fn=<AsStridedBackward0>) tensor([6., 3.], grad_fn=<AsStridedBackward0>) tensor([1., 6., 3., 4.], grad_fn=<CopySlices>)\ntensor([ 1., 30.,  0.,  0.])\n'),
    "base_changed_after_views": (
        'x = torch.tensor([1., 2., 3., 4.], requires_grad=True)\nz = x * 2\na = z[1:]\nv = z.view(2, 2)\nt = v.t()\nz.mul_(3)\nprint(a, v, t, sep="\\n")\n(a.sum() + (t * torch.tensor([[1., 2.], [3., 4.]])).sum()).backward()\nprint(x.grad)\n',
        'tensor([12., 18., 24.], grad_fn=<AsStridedBackward0>)\ntensor([[ 6., 12.],\n        [18., 24.]], grad_fn=<AsStridedBackward0>)\ntensor([[ 6., 18.],\n        [12., 24.]], grad_fn=<AsStridedBackward0>)\ntensor([ 6., 24., 18., 30.])\n'),
    "nested_views": (
        'x = torch.tensor([1., 2., 3., 4., 5.], requires_grad=True)\nz = x * 1\nv = z[1:]\nw = v[0:2]\nu = w.unsqueeze(0)\nz.add_(1)\nprint(w, u)\n(w.sum() + u.sum()).backward()\nprint(x.grad)\n',
        'tensor([3., 4.], grad_fn=<AsStridedBackward0>) tensor([[3., 4.]], grad_fn=<AsStridedBackward0>)\ntensor([0., 2., 2., 0., 0.])\n'),
    "detach_shares_values": (
        'x = torch.tensor([1., 2.], requires_grad=True)\nz = x * 1\nd = z.detach()\nz.mul_(5)\nprint(d, d.requires_grad)\n',
        'tensor([ 5., 10.]) False\n'),
    "view_changed_then_base": (
        'x = torch.tensor([1., 2., 3., 4.], requires_grad=True)\nz = x * 1\na = z[:2]\na.add_(10)\nz.mul_(2)\na.mul_(3)\nprint(a, z)\nz.sum().backward()\nprint(x.grad)\n',
        'tensor([66., 72.], grad_fn=<AsStridedBackward0>) tensor([66., 72.,  6.,  8.], grad_fn=<CopySlices>)\ntensor([6., 6., 2., 2.])\n'),
    "expand_and_select": (
        'x = torch.tensor([1., 2., 3.], requires_grad=True)\nz = x + 0\ne = z.expand(2, 3)\ns = z[2]\nz.sub_(1)\nprint(e, s)\n(e.sum() + s * 5).backward()\nprint(x.grad)\n',
        'tensor([[0., 1., 2.],\n        [0., 1., 2.]], grad_fn=<AsStridedBackward0>) tensor(2., grad_fn=<AsStridedBackward0>)\ntensor([2., 2., 7.])\n'),
    "saved_view_then_base_changed": (
        'x = torch.tensor([1., 2., 3., 4.], requires_grad=True)\nz = x * 1\na = z[0:2]\ny = (a * a).sum()\nz.add_(1)\ntry:\n    y.backward()\nexcept RuntimeError as e:\n    print("RuntimeError:", str(e).split(":")[0])\n',
        'RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation\n'),
    "many_views_in_a_loop": (
        'x = torch.arange(100.0, requires_grad=True)\nz = x * 1\nrows = [z[i] for i in range(100)]\nz.mul_(2)\nprint(sum(r.item() for r in rows))\ntorch.stack(rows).sum().backward()\nprint(x.grad[:5])\n',
        '9900.0\ntensor([2., 2., 2., 2., 2.])\n'),
    "view_of_a_written_view": (
        'x = torch.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)\ny = x * 1\nrow = y[0]\ne = row[1:]\nrow.mul_(2)\nprint(e, y)\ny.add_(1)\nprint(e, row)\n(e.sum() * 3 + y.sum()).backward()\nprint(x.grad)\n',
        'tensor([4., 6.], grad_fn=<AsStridedBackward0>) tensor([[2., 4., 6.],\n        [4., 5., 6.]], grad_fn=<CopySlices>)\ntensor([5., 7.], grad_fn=<AsStridedBackward0>) tensor([3., 5., 7.], grad_fn=<AsStridedBackward0>)\ntensor([[2., 8., 8.],\n        [1., 1., 1.]])\n'),
}


@pytest.mark.parametrize("name", CASES)
def test_like_pytorch(run, name):
    code, printed = CASES[name]
    record = run("import torch\n" + code)
    assert record["error"] is None, record["error"]
    assert record["stdout"] == printed


@pytest.mark.parametrize("name", CASES)
def test_stored_outputs_are_pytorchs(real_torch, name):
    code, printed = CASES[name]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(code, {"torch": real_torch})
    assert out.getvalue() == printed


def test_a_selected_element_is_a_view_under_no_grad(run):
    record = run("import torch\np = torch.tensor([1., 2., 3.])\nwith torch.no_grad():\n    p[0].add_(5)\n"
                 "q = p[1]\nq.mul_(10)\nprint(p)")
    assert record["stdout"] == "tensor([ 6., 20.,  3.])\n"
