# F.scaled_dot_product_attention against the formula written by hand, on multi-head projections of a batch;
# printing its output shows the fused op's grad_fn.
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(14)
batch, heads, seq, d_head = 1, 2, 3, 4
qkv = nn.Linear(heads * d_head, 3 * heads * d_head)
x = torch.randn(batch, seq, heads * d_head)
q, k, v = qkv(x).view(batch, seq, 3, heads, d_head).permute(2, 0, 3, 1, 4)
out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
print(out)
mask = torch.ones(seq, seq, dtype=torch.bool).tril()
scores = (q @ k.transpose(-2, -1)) / math.sqrt(d_head)
manual = torch.softmax(scores.masked_fill(~mask, float("-inf")), dim=-1) @ v
print(manual.grad_fn, torch.allclose(out, manual, atol=1e-6))
out.sum().backward()
g = qkv.bias.grad.view(3, heads * d_head)
print(g[0], round(g[2].sum().item(), 4), g[1].abs().max() < 1e-5)   # keys' bias: softmax ignores a shift
