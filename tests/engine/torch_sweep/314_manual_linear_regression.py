# Linear regression by hand: w and b with requires_grad, updates under torch.no_grad(), grad.zero_() each
# step; the fitted values printed as the loop goes.
import torch

torch.manual_seed(2024)
X = torch.rand(30, 1) * 10
y = 3 * X + 2 + torch.randn(30, 1) * 0.5
w = torch.zeros(1, 1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
lr = 0.01
for epoch in range(10):
    y_pred = X @ w + b
    loss = ((y_pred - y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w -= lr * w.grad
        b -= lr * b.grad
    if epoch % 2 == 0:
        print(f"epoch {epoch:2d} loss {loss.item():.4f} w {w.item():.4f} b {b.item():.4f} "
              f"grad_w {w.grad.item():.4f}")
    w.grad.zero_()
    b.grad.zero_()
print(w, b)
print(w.is_leaf, b.is_leaf, w.grad, y_pred.is_leaf, y_pred.grad_fn)
x_c, y_c = X - X.mean(), y - y.mean()
slope = (x_c * y_c).sum() / (x_c ** 2).sum()
print("closed form:", slope, y.mean() - slope * X.mean())
