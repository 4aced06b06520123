# Why deep sigmoid networks train slowly: sigmoid saturates, its derivative out * (1 - out) vanishes in the
# tails, and the gradient through a chain of sigmoids shrinks layer by layer; tanh and ReLU for comparison.
import torch

z = torch.tensor([-30.0, -20.0, -10.0, -5.0, 0.0, 5.0, 10.0, 20.0], requires_grad=True)
s = torch.sigmoid(z)
print(s)
s.sum().backward()
print(z.grad)
print(torch.nn.Sigmoid()(torch.tensor([-12.0, 12.0])), torch.tensor([-15.0]).sigmoid())
w = torch.tensor(-1.5, requires_grad=True)
h = w
for layer in range(6):
    h = torch.sigmoid(h * 4.0 - 8.0)
    print(layer, h.item())
h.backward()
print("grad at the first layer:", w.grad)
x = torch.linspace(-6, 6, 7, requires_grad=True)
torch.tanh(x).sum().backward()
print(x.grad)
x.grad = None
torch.relu(x).sum().backward()
print(x.grad)
logits = torch.tensor([-25.0, 25.0])
target = torch.tensor([1.0, 0.0])
print(torch.nn.functional.binary_cross_entropy_with_logits(logits, target, reduction="none"))
print(torch.nn.functional.binary_cross_entropy(torch.sigmoid(logits), target, reduction="none"))
