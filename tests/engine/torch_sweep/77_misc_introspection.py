# Introspection a class does: generators of parameters, dtypes' properties, module attributes, grad of non-leaves.
import torch
import torch.nn as nn

model = nn.Linear(3, 2)
print(model.parameters())
print(type(model.weight).__name__, type(model.weight.data).__name__, model.weight.dtype, model.weight.is_leaf)
print(torch.float32.is_floating_point, torch.int64.is_floating_point, torch.float64, torch.long, torch.float == torch.float32)
print(torch.tensor([1.0]).dtype is torch.float32, str(torch.int32), torch.tensor([1]).element_size(), torch.ones(2, 3).dim())
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
print(y.is_leaf, y.requires_grad, x.grad is None, y.grad_fn is not None, x.grad_fn)
model.weight.requires_grad_(False)
print([p.requires_grad for p in model.parameters()], model.in_features, model.out_features, model.bias.shape)
print(hasattr(model, "weight"), hasattr(nn, "Linear"), callable(model), isinstance(model, nn.Module))
print(model.training, model.__class__.__name__, repr(model.weight.shape))
