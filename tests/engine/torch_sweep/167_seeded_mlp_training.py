# The usual teacher script: seed, random data, an MLP with default initialisation, Adam, a few epochs of training.
import torch
import torch.nn as nn

torch.manual_seed(42)
X = torch.randn(64, 3)
true_w = torch.tensor([[1.5], [-2.0], [0.5]])
y = X @ true_w + 0.1 * torch.randn(64, 1)

model = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 1))
print(model[0].weight[:2], model[2].bias)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
loss_fn = nn.MSELoss()
for epoch in range(60):
    optimizer.zero_grad()
    loss = loss_fn(model(X), y)
    loss.backward()
    optimizer.step()
    if epoch % 15 == 0:
        print(f"epoch {epoch:2d}  loss {loss.item():.4f}")
with torch.no_grad():
    test = torch.randn(4, 3)
    print(model(test).squeeze(), (test @ true_w).squeeze())
print(model[2].weight.grad.norm())
