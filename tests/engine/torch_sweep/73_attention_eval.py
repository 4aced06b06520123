# Self-attention by hand and with nn.MultiheadAttention / TransformerEncoderLayer in eval mode.
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
x = torch.linspace(-1, 1, 2 * 3 * 4).reshape(2, 3, 4)
q = k = v = x
scores = q @ k.transpose(-2, -1) / math.sqrt(4)
mask = torch.triu(torch.ones(3, 3, dtype=torch.bool), 1)
attn = scores.masked_fill(mask, float("-inf")).softmax(-1)
print(attn[0], (attn @ v)[1])
print(F.scaled_dot_product_attention(q, k, v, is_causal=True)[1])
mha = nn.MultiheadAttention(4, 2, batch_first=True)
enc = nn.TransformerEncoderLayer(d_model=4, nhead=2, dim_feedforward=8, batch_first=True)
for module in (mha, enc):
    with torch.no_grad():
        for i, (name, p) in enumerate(module.named_parameters()):
            p.copy_(torch.linspace(-0.5, 0.5, p.numel()).reshape(p.shape) * ((i % 3) + 1) / 3)
    module.eval()
out, weights = mha(x, x, x)
print(out[0], weights[1])
out, weights = mha(x, x, x, attn_mask=mask, average_attn_weights=False)
print(weights.shape, weights[0, 1])
print(enc(x)[1])
print([name for name, _ in enc.named_parameters()])
