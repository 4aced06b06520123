# Scaled dot-product attention written by hand: softmax(QK^T / sqrt(d)) V, a causal mask, and backward.
import math
import torch
import torch.nn as nn

torch.manual_seed(3)
batch, seq, d_model = 2, 4, 8
x = torch.randn(batch, seq, d_model, requires_grad=True)
w_q = nn.Linear(d_model, d_model, bias=False)
w_k = nn.Linear(d_model, d_model, bias=False)
w_v = nn.Linear(d_model, d_model, bias=False)

q, k, v = w_q(x), w_k(x), w_v(x)
scores = q @ k.transpose(-2, -1) / math.sqrt(d_model)
print(scores.shape, scores.grad_fn)
mask = torch.triu(torch.ones(seq, seq, dtype=torch.bool), diagonal=1)
print(mask)
scores = scores.masked_fill(mask, float("-inf"))
weights = torch.softmax(scores, dim=-1)
print(weights[0])
print(weights.sum(dim=-1))
out = weights @ v
print(out.shape, out.grad_fn)
loss = out.pow(2).mean()
loss.backward()
print(loss)
print(x.grad[0, 0])
print(x.grad[:, -1].norm(dim=-1))
print(w_q.weight.grad.norm(), w_k.weight.grad.norm(), w_v.weight.grad.norm())
print(x.grad.shape, w_q.weight.grad.abs().max())
