# Embedding + LayerNorm + GELU + Linear on token ids, with gradients into the embedding table.
import torch
import torch.nn as nn
import torch.nn.functional as F

emb = nn.Embedding(6, 4, padding_idx=0)
norm = nn.LayerNorm(4)
fc = nn.Linear(4, 2)
with torch.no_grad():
    emb.weight.copy_(torch.arange(24.0).reshape(6, 4).cos())
    emb.weight[0].zero_()
    fc.weight.copy_(torch.tensor([[0.2, -0.1, 0.4, 0.3], [-0.5, 0.1, 0.0, 0.2]]))
    fc.bias.fill_(0.05)
ids = torch.tensor([[1, 2, 0], [5, 5, 3]])
h = emb(ids)
print(h.shape)
out = fc(F.gelu(norm(h)))
print(out.detach())
out.pow(2).sum().backward()
print(emb.weight.grad)
print(norm.weight.grad, norm.bias.grad)
print(F.one_hot(ids[1], num_classes=6))
print(F.layer_norm(torch.tensor([[1.0, 2.0, 4.0]]), (3,)), F.gelu(torch.tensor([-1.0, 0.0, 1.0]), approximate='tanh'))
print(F.softmax(torch.tensor([1.0, 2.0, 3.0]), dim=0), F.log_softmax(torch.tensor([[1.0, 2.0]]), dim=1))
print(F.silu(torch.tensor([1.0, -1.0])), F.leaky_relu(torch.tensor([-2.0, 2.0]), 0.1), F.softplus(torch.tensor([0.0, 30.0])))
