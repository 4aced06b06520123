# Fine-tuning: freeze a pretrained body with requires_grad_(False), optimize only the head, then unfreeze with
# a smaller learning rate in a second parameter group (add_param_group); print(optimizer).
import torch
import torch.nn as nn

torch.manual_seed(31)
body = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU())
head = nn.Linear(8, 2)
model = nn.Sequential(body, head)
for p in body.parameters():
    p.requires_grad_(False)
trainable = [n for n, p in model.named_parameters() if p.requires_grad]
print(trainable)
print(sum(p.numel() for p in model.parameters() if p.requires_grad), sum(p.numel() for p in model.parameters()))
opt = torch.optim.SGD(filter(lambda p: p.requires_grad, model.parameters()), lr=0.1)
x = torch.randn(6, 4)
y = torch.tensor([0, 1, 1, 0, 1, 0])
body_before = body[0].weight.clone()
for step in range(3):
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 5), body[0].weight.grad)
print(torch.equal(body_before, body[0].weight), model(x).requires_grad)
for p in body.parameters():
    p.requires_grad_(True)
opt.add_param_group({"params": body.parameters(), "lr": 0.01})
print(len(opt.param_groups), [g["lr"] for g in opt.param_groups], [len(g["params"]) for g in opt.param_groups])
print(opt)
opt.zero_grad()
loss = nn.functional.cross_entropy(model(x), y)
loss.backward()
opt.step()
print(round(loss.item(), 5), (body[0].weight - body_before).abs().max())
opt2 = torch.optim.Adam([{"params": head.parameters()}, {"params": body.parameters(), "lr": 1e-4}], lr=1e-3)
print(opt2)
