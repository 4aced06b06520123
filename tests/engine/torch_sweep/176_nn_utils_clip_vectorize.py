# nn.utils: clip_grad_norm_ with 2/inf/1 norms and non-finite gradients, clip_grad_value_, parameters_to_vector
# staying in the graph (a penalty on it reaches the parameters) and vector_to_parameters.
import torch
import torch.nn as nn
def attempt(label, fn):
    try:
        print(label, fn())
    except Exception as exc:
        print(label, "ERROR", type(exc).__name__, exc)
def model_with_grads():
    m = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 1))
    with torch.no_grad():
        for i, p in enumerate(m.parameters()):
            p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape) * (i + 1))
    m(torch.tensor([[1.0, -2.0], [3.0, 0.5]])).pow(2).sum().backward()
    return m
m = model_with_grads()
attempt("norm2", lambda: (nn.utils.clip_grad_norm_(m.parameters(), 1.0), [p.grad for p in m.parameters()][0]))
m = model_with_grads()
attempt("norm inf", lambda: (nn.utils.clip_grad_norm_(m.parameters(), 2.0, norm_type=float("inf")), m[1].weight.grad))
m = model_with_grads()
attempt("norm1", lambda: (nn.utils.clip_grad_norm_(m.parameters(), 5.0, norm_type=1), m[1].bias.grad))
m = model_with_grads()
attempt("no clip", lambda: (nn.utils.clip_grad_norm_(m.parameters(), 1000.0), m[1].bias.grad))
attempt("single tensor", lambda: (lambda p: (p.grad.copy_(torch.tensor([3.0, 4.0])), nn.utils.clip_grad_norm_(p, 1.0), p.grad)[1:])(nn.Parameter(torch.zeros(2)).requires_grad_().__class__(torch.zeros(2)) if False else (lambda q: (setattr(q, "grad", torch.zeros(2)), q)[1])(nn.Parameter(torch.zeros(2)))))
attempt("nonfinite", lambda: (lambda q: (setattr(q, "grad", torch.tensor([float("nan"), 1.0])), nn.utils.clip_grad_norm_([q], 1.0, error_if_nonfinite=True))[1])(nn.Parameter(torch.zeros(2))))
attempt("nonfinite no err", lambda: (lambda q: (setattr(q, "grad", torch.tensor([float("inf"), 1.0])), nn.utils.clip_grad_norm_([q], 1.0), q.grad)[1:])(nn.Parameter(torch.zeros(2))))
attempt("no grads", lambda: nn.utils.clip_grad_norm_(nn.Linear(2, 2).parameters(), 1.0))
m = model_with_grads()
attempt("value", lambda: (nn.utils.clip_grad_value_(m.parameters(), 0.5), m[0].weight.grad)[1])
attempt("p2v v2p", lambda: (lambda mm: (nn.utils.vector_to_parameters(torch.arange(9.0), mm.parameters()), mm.weight, mm.bias, nn.utils.parameters_to_vector(mm.parameters())))(nn.Linear(2, 3)))
lin = nn.Linear(2, 1)
with torch.no_grad():
    lin.weight.copy_(torch.tensor([[0.5, -1.0]])); lin.bias.fill_(0.25)
x = torch.tensor([[1.0, 2.0]])
vec = nn.utils.parameters_to_vector(lin.parameters())
loss = lin(x).sum() + 0.1 * vec.pow(2).sum()
loss.backward()
print(vec, loss, lin.weight.grad, lin.bias.grad)
