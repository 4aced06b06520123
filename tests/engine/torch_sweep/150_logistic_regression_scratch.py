# Logistic regression written from scratch: manual sigmoid and BCE, gradients by autograd, updates under no_grad,
# checked against nn.BCEWithLogitsLoss.
import torch
import torch.nn.functional as F

X = torch.tensor([[0.5, 1.5], [1.0, 1.0], [1.5, 0.5], [3.0, 3.5], [3.5, 3.0], [4.0, 4.0]])
y = torch.tensor([0.0, 0.0, 0.0, 1.0, 1.0, 1.0])
w = torch.zeros(2, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
lr = 0.3
for epoch in range(100):
    z = X @ w + b
    p = 1 / (1 + torch.exp(-z))
    loss = -(y * torch.log(p) + (1 - y) * torch.log(1 - p)).mean()
    loss.backward()
    with torch.no_grad():
        w -= lr * w.grad
        b -= lr * b.grad
    w.grad.zero_()
    b.grad.zero_()
    if epoch % 25 == 0:
        print(epoch, loss.item(), F.binary_cross_entropy_with_logits(z.detach(), y).item())
print(w, b)
with torch.no_grad():
    preds = (torch.sigmoid(X @ w + b) > 0.5).float()
print(preds, (preds == y).float().mean())
print(torch.sigmoid(torch.tensor([2.0, 2.0]) @ w + b))
