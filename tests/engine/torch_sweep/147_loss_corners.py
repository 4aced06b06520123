# Loss corners: gradients where |x - y| is 0 or beyond delta, 1-D inputs, ignored targets, probabilities with
# smoothing, 4-D cross-entropy, and the errors for wrong sizes, dtypes and reductions.
import torch
import torch.nn as nn
import torch.nn.functional as F
def attempt(label, fn):
    try:
        print(label, fn())
    except Exception as exc:
        print(label, "ERROR", type(exc).__name__, exc)
def g(fn, *shapes_vals):
    xs = [torch.tensor(v, requires_grad=True) for v in shapes_vals]
    out = fn(*xs)
    out.sum().backward()
    return out.detach(), [x.grad for x in xs]
attempt("l1 zero grad", lambda: g(lambda p: F.l1_loss(p, torch.tensor([1.0, 2.0])), [1.0, 3.0]))
attempt("ce 1d input", lambda: g(lambda z: F.cross_entropy(z, torch.tensor(1)), [1.0, 2.0, 0.5]))
attempt("ce probs smoothing", lambda: g(lambda z: F.cross_entropy(z, torch.tensor([[0.2, 0.8], [1.0, 0.0]]), label_smoothing=0.2), [[1.0, 2.0], [0.5, -0.5]]))
attempt("ce ignore all", lambda: F.cross_entropy(torch.ones(2, 3), torch.tensor([-100, -100])))
attempt("ce ignore sum", lambda: F.cross_entropy(torch.ones(2, 3), torch.tensor([-100, 1]), reduction="sum"))
attempt("nll 1d", lambda: F.nll_loss(torch.tensor([-1.0, -2.0]), torch.tensor(0)))
attempt("nll weight none", lambda: F.nll_loss(torch.tensor([[-1.0, -2.0], [-0.5, -3.0]]), torch.tensor([1, 0]), weight=torch.tensor([2.0, 1.0]), reduction="none"))
attempt("bce out of range", lambda: F.binary_cross_entropy(torch.tensor([1.5]), torch.tensor([1.0])))
attempt("bce size mismatch", lambda: F.binary_cross_entropy(torch.tensor([0.5, 0.5]), torch.tensor([[1.0, 0.0]])))
attempt("bce logits size mismatch", lambda: F.binary_cross_entropy_with_logits(torch.tensor([0.5, 0.5]), torch.tensor([[1.0, 0.0]])))
attempt("bce clamp log", lambda: g(lambda p: F.binary_cross_entropy(p, torch.tensor([1.0, 0.0])), [0.0, 1.0]))
attempt("bad reduction", lambda: F.mse_loss(torch.ones(2), torch.ones(2), reduction="avg"))
attempt("mse int", lambda: F.mse_loss(torch.tensor([1, 2]), torch.tensor([1, 3])))
attempt("mse f64", lambda: F.mse_loss(torch.tensor([1.0], dtype=torch.float64), torch.tensor([3.0])))
attempt("mse broadcast", lambda: g(lambda p: F.mse_loss(p, torch.tensor([[1.0], [2.0]])), [0.0, 1.0, 2.0]))
attempt("huber grads", lambda: g(lambda p: F.huber_loss(p, torch.zeros(4), delta=1.0), [-3.0, -0.5, 0.5, 2.0]))
attempt("smooth l1 grads", lambda: g(lambda p: F.smooth_l1_loss(p, torch.zeros(4), beta=0.5), [-3.0, -0.25, 0.25, 2.0]))
attempt("bcelogits weight pos_weight", lambda: g(lambda z: F.binary_cross_entropy_with_logits(z, torch.tensor([[1.0, 0.0], [0.0, 1.0]]), weight=torch.tensor([2.0, 1.0]), pos_weight=torch.tensor([3.0, 0.5]), reduction="sum"), [[0.5, -1.0], [2.0, 0.0]]))
attempt("ce 4d", lambda: g(lambda z: F.cross_entropy(z, torch.tensor([[[0, 1], [1, 1]]])), [[[[1.0, 2.0], [0.0, 1.0]], [[0.5, 0.5], [2.0, -1.0]]]]))
attempt("ce target float idx", lambda: F.cross_entropy(torch.ones(2, 3), torch.tensor([0, 1], dtype=torch.int32)))
attempt("ce wrong shape", lambda: F.cross_entropy(torch.ones(2, 3), torch.tensor([0, 1, 2])))
attempt("nll target dim", lambda: F.nll_loss(torch.ones(2, 3), torch.tensor([[0], [1]])))
attempt("CEL repr weight", lambda: nn.CrossEntropyLoss(weight=torch.tensor([1.0, 2.0])))
attempt("CEL attr", lambda: (nn.CrossEntropyLoss().reduction, nn.CrossEntropyLoss().ignore_index, nn.CrossEntropyLoss(weight=torch.ones(2)).weight))
attempt("MSELoss size_average", lambda: nn.MSELoss(size_average=False)(torch.ones(2), torch.zeros(2)))
