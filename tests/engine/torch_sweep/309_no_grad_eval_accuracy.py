# Train/test split on seeded blobs, an MLP trained with minibatches, evaluation under torch.no_grad() with
# accuracy, and what requires_grad / grad_fn look like inside and outside no_grad.
import torch
import torch.nn as nn

torch.manual_seed(123)
n = 60
centers = torch.tensor([[2.0, 2.0], [-2.0, -2.0], [2.0, -2.0]])
labels = torch.arange(3).repeat(n // 3)
points = centers[labels] + torch.randn(n, 2)
perm = torch.randperm(n)
points, labels = points[perm], labels[perm]
train_x, test_x = points[:45], points[45:]
train_y, test_y = labels[:45], labels[45:]
print(train_x.shape, test_y[:10])

model = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 3))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loss_fn = nn.CrossEntropyLoss()


def evaluate(x, y):
    model.eval()
    with torch.no_grad():
        logits = model(x)
        loss = loss_fn(logits, y)
        correct = (logits.argmax(dim=1) == y).sum()
    model.train()
    return loss.item(), correct.item() / len(y)


for epoch in range(4):
    for i in range(0, 45, 15):
        xb, yb = train_x[i:i + 15], train_y[i:i + 15]
        opt.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        opt.step()
    test_loss, test_acc = evaluate(test_x, test_y)
    print(f"epoch {epoch} train_loss {loss.item():.4f} test_loss {test_loss:.4f} test_acc {test_acc:.3f}")

with torch.no_grad():
    out = model(test_x[:3])
    print(out.requires_grad, out.grad_fn, torch.is_grad_enabled())
out = model(test_x[:3])
print(out.requires_grad, out.grad_fn, torch.is_grad_enabled())
probs = torch.softmax(out, dim=1)
print(probs.detach(), probs.max(dim=1))
confusion = torch.zeros(3, 3, dtype=torch.long)
with torch.no_grad():
    pred = model(test_x).argmax(1)
for t, p in zip(test_y, pred):
    confusion[t, p] += 1
print(confusion)
