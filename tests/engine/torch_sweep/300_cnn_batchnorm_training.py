# A small CNN (Conv2d, BatchNorm2d, MaxPool2d, Flatten, Linear) trained a few steps on seeded random images.
import torch
import torch.nn as nn

torch.manual_seed(0)
images = torch.randn(16, 1, 8, 8)
labels = torch.randint(0, 4, (16,))

model = nn.Sequential(
    nn.Conv2d(1, 6, kernel_size=3, padding=1),
    nn.BatchNorm2d(6),
    nn.ReLU(),
    nn.MaxPool2d(2),
    nn.Conv2d(6, 8, kernel_size=3),
    nn.ReLU(),
    nn.Flatten(),
    nn.Linear(8 * 2 * 2, 4),
)
print(model)
print("parameters:", sum(p.numel() for p in model.parameters()))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
for step in range(5):
    optimizer.zero_grad()
    out = model(images)
    loss = criterion(out, labels)
    loss.backward()
    optimizer.step()
    print(f"step {step}: loss={loss.item():.4f}")
print(out.shape, out[0])
print(model[1].running_mean, model[1].num_batches_tracked)
model.eval()
with torch.no_grad():
    preds = model(images).argmax(dim=1)
print(preds)
print("train accuracy:", (preds == labels).float().mean().item())
