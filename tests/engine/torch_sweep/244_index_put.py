# index_put / index_put_: values written (or added, accumulate=True) at tuples of index tensors or masks.
import torch

x = torch.zeros(3, 4)
x.index_put_((torch.tensor([0, 2]), torch.tensor([1, 3])), torch.tensor([5.0, 6.0]))
print(x)
x.index_put_((torch.tensor([0, 0, 1]), torch.tensor([1, 1, 2])), torch.tensor(1.0), accumulate=True)
print(x)
print(x.index_put((torch.tensor([1]),), torch.tensor([9.0, 8.0, 7.0, 6.0])))
print(torch.index_put(x, (x > 4,), torch.tensor(-1.0)))

w = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
v = torch.tensor([10.0, 20.0], requires_grad=True)
out = w.index_put((torch.tensor([2, 0]),), v)
print(out)
(out * torch.arange(1.0, 7.0).reshape(3, 2)).sum().backward()
print(w.grad, v.grad)

w.grad, v.grad = None, None
acc = w.index_put((torch.tensor([1, 1]), torch.tensor([0, 0])), v, accumulate=True)
print(acc)
acc.sum().backward()
print(w.grad, v.grad)

y = w * 1
y.index_put_((torch.tensor([True, False, True]),), torch.tensor([0.5, 0.25]))
print(y, y.grad_fn)
for bad in ("x.index_put_((torch.tensor([0]),), torch.tensor([1.0], dtype=torch.float64))",
            "x.index_put_((torch.tensor([7]),), torch.tensor(1.0))",
            "x.index_put_((torch.tensor([0.0]),), torch.tensor(1.0))"):
    try:
        eval(bad)
    except (RuntimeError, IndexError) as e:
        print(type(e).__name__, e)
