# Layers whose output PyTorch makes with one fused op (its own grad_fn), where Dagscope composes several.
import torch
import torch.nn as nn
import torch.nn.functional as F

x = torch.tensor([[0.5, -1.0, 2.0, 0.3], [1.5, 0.0, -0.5, 0.7]], requires_grad=True)
print(nn.LeakyReLU(0.1)(x))
print(F.silu(x).grad_fn, nn.SiLU()(x).grad_fn, F.leaky_relu(x).grad_fn)
print(nn.LayerNorm(4)(x))
print(F.layer_norm(x, (4,)).grad_fn)
img = torch.linspace(-1, 1, 32).reshape(1, 2, 4, 4).requires_grad_()
print(nn.AdaptiveAvgPool2d(1)(img).grad_fn, nn.AdaptiveAvgPool2d((2, 2))(img).grad_fn)
