# An LSTM cell written by hand (gates = x W_ih^T + b_ih + h W_hh^T + b_hh, split into i, f, g, o with chunk)
# checked against nn.LSTMCell with the same weights; the gates' grad_fn and the gradients after backward.
import torch
import torch.nn as nn

torch.manual_seed(13)
cell = nn.LSTMCell(3, 2)
x = torch.randn(4, 3)
h = torch.zeros(4, 2)
c = torch.zeros(4, 2)


def lstm_step(x, h, c):
    gates = x @ cell.weight_ih.T + cell.bias_ih + h @ cell.weight_hh.T + cell.bias_hh
    i, f, g, o = gates.chunk(4, dim=1)
    print("gate grad_fn:", i.grad_fn)
    i, f, o = torch.sigmoid(i), torch.sigmoid(f), torch.sigmoid(o)
    g = torch.tanh(g)
    c = f * c + i * g
    return o * torch.tanh(c), c


h1, c1 = lstm_step(x, h, c)
h2, c2 = cell(x, (h, c))
print(h1)
print(torch.allclose(h1, h2, atol=1e-6), torch.allclose(c1, c2, atol=1e-6))
h1.sum().backward()
manual_grad = cell.weight_ih.grad.clone()
cell.zero_grad()
h2.sum().backward()
print(manual_grad)
print(torch.allclose(manual_grad, cell.weight_ih.grad, atol=1e-6))
gates = torch.randn(2, 8, requires_grad=True)
parts = gates.split([2, 2, 4], dim=1)
print([p.shape for p in parts], parts[2].grad_fn)
