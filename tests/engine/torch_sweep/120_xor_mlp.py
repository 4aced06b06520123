# XOR with a 2-4-1 MLP: fixed starting weights, BCEWithLogitsLoss, SGD with momentum, the loss every 100 steps.
import torch
import torch.nn as nn

X = torch.tensor([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
Y = torch.tensor([[0.0], [1.0], [1.0], [0.0]])


class XorNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(2, 4)
        self.out = nn.Linear(4, 1)

    def forward(self, x):
        return self.out(torch.tanh(self.hidden(x)))


model = XorNet()
with torch.no_grad():
    model.hidden.weight.copy_(torch.tensor([[1.0, -1.0], [-0.5, 0.8], [0.3, 0.3], [0.9, 0.7]]))
    model.hidden.bias.copy_(torch.tensor([0.0, 0.1, -0.2, -0.5]))
    model.out.weight.copy_(torch.tensor([[0.5, -0.4, 0.3, -0.2]]))
    model.out.bias.zero_()
criterion = nn.BCEWithLogitsLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.5, momentum=0.9)
for epoch in range(300):
    optimizer.zero_grad()
    loss = criterion(model(X), Y)
    loss.backward()
    optimizer.step()
    if epoch % 100 == 0 or epoch == 299:
        print(f"epoch {epoch:3d} loss {loss.item():.4f}")
with torch.no_grad():
    probs = torch.sigmoid(model(X))
print(probs)
print((probs > 0.5).float().squeeze(1), ((probs > 0.5).float() == Y).all().item())
print(model.hidden.weight.grad.shape, model)
