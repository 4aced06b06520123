# A binary classifier with BCEWithLogitsLoss (pos_weight), predictions by sigmoid and a 0.5 threshold,
# precision/recall by hand, and BCELoss on probabilities agreeing with it.
import torch
import torch.nn as nn

torch.manual_seed(21)
x = torch.randn(40, 3)
true_w = torch.tensor([1.5, -2.0, 0.5])
y = ((x @ true_w + 0.3 * torch.randn(40)) > 0.8).float()
print(y.sum().item(), y[:10])
model = nn.Linear(3, 1)
criterion = nn.BCEWithLogitsLoss(pos_weight=torch.tensor([2.0]))
opt = torch.optim.Adam(model.parameters(), lr=0.1)
for epoch in range(10):
    opt.zero_grad()
    logits = model(x).squeeze(1)
    loss = criterion(logits, y)
    loss.backward()
    opt.step()
    if epoch % 3 == 0:
        print(epoch, f"{loss.item():.4f}")
with torch.no_grad():
    probs = torch.sigmoid(model(x).squeeze(1))
    pred = (probs > 0.5).float()
tp = ((pred == 1) & (y == 1)).sum().item()
fp = ((pred == 1) & (y == 0)).sum().item()
fn = ((pred == 0) & (y == 1)).sum().item()
print("tp fp fn", tp, fp, fn)
print("precision", round(tp / max(tp + fp, 1), 4), "recall", round(tp / max(tp + fn, 1), 4))
print(probs[:5], pred[:5], pred.dtype)
logits = model(x[:6]).squeeze(1)
a = nn.BCEWithLogitsLoss()(logits, y[:6])
b = nn.BCELoss()(torch.sigmoid(logits), y[:6])
print(a, b, torch.allclose(a, b))
print(nn.BCEWithLogitsLoss(reduction="none")(logits, y[:6]))
print(nn.BCELoss(weight=torch.tensor([1.0, 2.0, 1.0, 2.0, 1.0, 2.0]))(torch.sigmoid(logits), y[:6]))
print(model.weight, model.bias)
