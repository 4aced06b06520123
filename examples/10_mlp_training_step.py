# title: One training step of a two-layer MLP
# title_zh: 两层感知机的一个训练步
# concept: nn.Module, loss, optimizer, backward
import torch
import torch.nn as nn
import torch.nn.functional as F


class MLP(nn.Module):
    def __init__(self, d_in, d_hid, d_out):
        super().__init__()
        self.fc1 = nn.Linear(d_in, d_hid)
        self.fc2 = nn.Linear(d_hid, d_out)

    def forward(self, x):
        x = F.relu(self.fc1(x))
        return self.fc2(x)


torch.manual_seed(0)
x = torch.randn(32, 100)           # batch=32, feature=100
y = torch.randint(0, 10, (32,))    # class labels
model = MLP(100, 128, 10)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)

logits = model(x)                  # the forward pass builds the dynamic graph
loss = F.cross_entropy(logits, y)
opt.zero_grad()
loss.backward()                    # autograd walks that graph, then frees it
opt.step()
print(loss.item())
