# Indexing corners and gradients through them: negative steps (an error), masks of the wrong length, separated
# advanced indices, setitem with broadcasting and duplicates, one_hot's errors, gradients of index/mask/where ops.
import torch
import torch.nn.functional as F
def attempt(label, fn):
    try:
        print(label, fn())
    except Exception as exc:
        print(label, "ERROR", type(exc).__name__, exc)
a = torch.arange(12.0).reshape(3, 4)
attempt("neg step", lambda: a[::-1])
attempt("none idx", lambda: a[None].shape)
attempt("ellipsis mid", lambda: torch.zeros(2, 3, 4, 5)[0, ..., 1].shape)
attempt("list of bools", lambda: a[[True, False, True]])
attempt("tensor idx 2d", lambda: a[torch.tensor([[0, 1], [2, 2]])].shape)
attempt("mask 2d", lambda: a[a > 5])
attempt("mask row", lambda: a[torch.tensor([True, False, True])])
attempt("mask wrong", lambda: a[torch.tensor([True, False])])
attempt("idx oob tensor", lambda: a[torch.tensor([5])])
attempt("idx float", lambda: a[torch.tensor([1.0])])
attempt("idx neg tensor", lambda: a[torch.tensor([-1])])
attempt("mixed", lambda: a[1:, torch.tensor([0, 2])])
attempt("mixed2", lambda: a[torch.tensor([0, 2]), 1:3])
attempt("adv separated", lambda: torch.zeros(2, 3, 4, 5)[torch.tensor([0, 1]), :, torch.tensor([1, 2])].shape)
attempt("int tensor 0d idx", lambda: a[torch.tensor(1)])
attempt("setitem broadcast", lambda: (lambda t: (t.__setitem__((slice(None), 0), torch.tensor([7.0, 8.0, 9.0])), t)[1])(a.clone()))
attempt("setitem mask tensor", lambda: (lambda t: (t.__setitem__(t > 8, torch.tensor([1.0, 2.0, 3.0])), t)[1])(a.clone()))
attempt("setitem dup idx", lambda: (lambda t: (t.__setitem__(torch.tensor([0, 0]), torch.tensor([[1.0] * 4, [2.0] * 4])), t)[1])(a.clone()))
attempt("gather dims", lambda: a.gather(0, torch.tensor([0, 1])))
attempt("one_hot bad", lambda: F.one_hot(torch.tensor([3]), 3))
attempt("one_hot neg", lambda: F.one_hot(torch.tensor([-1])))
attempt("one_hot float", lambda: F.one_hot(torch.tensor([1.0])))
attempt("one_hot empty", lambda: F.one_hot(torch.tensor([], dtype=torch.long), 3).shape)
attempt("one_hot -1 classes", lambda: F.one_hot(torch.tensor([1, 2]), -1))
x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
y = x[[0, 0, 1], [2, 2, 0]]
y.sum().backward()
attempt("dup idx grad", lambda: x.grad)
x.grad = None
z = x.clone()
z[0, 1] = 100.0
z[:, 2] = z[:, 2] * 2
(z * z).sum().backward()
attempt("setitem grad", lambda: (z, x.grad))
x.grad = None
w = x * 1
w[w > 3] = 0
w.sum().backward()
attempt("mask set grad", lambda: x.grad)
x.grad = None
m = x.masked_fill(x > 4, -1.0)
m.sum().backward()
attempt("masked_fill grad", lambda: (m, x.grad))
x.grad = None
s = torch.where(x > 2, x * 2, x.new_zeros(()))
s.sum().backward()
attempt("where grad", lambda: x.grad)
attempt("index_select grad", lambda: torch.autograd.grad(x.index_select(1, torch.tensor([0, 0, 2])).sum(), x))
attempt("narrow", lambda: x.narrow(1, 1, 2))
attempt("chunk uneven", lambda: torch.arange(5).chunk(3))
attempt("split list bad", lambda: torch.arange(5).split([2, 2]))
