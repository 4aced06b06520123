# A vanilla RNN cell written by hand (tanh(W_xh x + W_hh h + b)) unrolled over time; backprop through time
# and how the gradient reaching each earlier hidden state shrinks.
import torch

torch.manual_seed(10)
input_size, hidden_size, steps = 3, 4, 6
W_xh = (torch.randn(hidden_size, input_size) * 0.5).requires_grad_()
W_hh = (torch.randn(hidden_size, hidden_size) * 0.5).requires_grad_()
b = torch.zeros(hidden_size, requires_grad=True)
xs = torch.randn(steps, input_size)
h = torch.zeros(hidden_size)
hiddens = []
for t in range(steps):
    h = torch.tanh(W_xh @ xs[t] + W_hh @ h + b)
    h.retain_grad()
    hiddens.append(h)
print(h, h.grad_fn)
loss = (h ** 2).sum()
loss.backward()
for t, ht in enumerate(hiddens):
    print(t, f"{ht.grad.norm().item():.6f}")
print(W_xh.grad)
print(W_hh.grad.norm(), b.grad)
print(W_xh.is_leaf, hiddens[0].is_leaf, hiddens[0].requires_grad)
