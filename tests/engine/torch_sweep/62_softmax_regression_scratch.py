# Softmax regression from scratch: weights as leaf tensors, manual cross-entropy, SGD by hand.
import torch

X = torch.tensor([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0], [0.0, 0.0], [2.0, 1.0], [1.0, 2.0]])
y = torch.tensor([0, 1, 2, 0, 1, 2])
W = torch.zeros(2, 3, requires_grad=True)
b = torch.zeros(3, requires_grad=True)


def softmax(z):
    z_exp = torch.exp(z - z.max(dim=1, keepdim=True).values)
    return z_exp / z_exp.sum(dim=1, keepdim=True)


for epoch in range(50):
    probs = softmax(X @ W + b)
    loss = -torch.log(probs[torch.arange(len(y)), y]).mean()
    loss.backward()
    with torch.no_grad():
        W -= 0.5 * W.grad
        b -= 0.5 * b.grad
        W.grad.zero_()
        b.grad.zero_()
    if epoch % 10 == 0:
        print(epoch, round(loss.item(), 5))
print(W, b)
print(softmax(X @ W + b).argmax(dim=1), (softmax(X @ W + b).argmax(dim=1) == y).float().mean())
