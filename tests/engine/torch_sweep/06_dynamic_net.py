# The tutorial's DynamicNet: Python control flow decides how many times a weight is reused.
import math
import torch


class DynamicNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Parameter(torch.tensor(0.1))
        self.b = torch.nn.Parameter(torch.tensor(-0.3))
        self.c = torch.nn.Parameter(torch.tensor(0.02))
        self.d = torch.nn.Parameter(torch.tensor(0.05))
        self.e = torch.nn.Parameter(torch.tensor(-0.01))

    def forward(self, x, extra):
        y = self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3
        for exp in range(4, extra + 4):
            y = y + self.e * x ** exp
        return y

    def string(self):
        return f'y = {self.a.item()} + {self.b.item()} x + {self.c.item()} x^2 + {self.d.item()} x^3 + {self.e.item()} x^4 ? + {self.e.item()} x^5 ?'


x = torch.linspace(-math.pi, math.pi, 2000)
y = torch.sin(x)
model = DynamicNet()
criterion = torch.nn.MSELoss(reduction='sum')
optimizer = torch.optim.SGD(model.parameters(), lr=1e-8, momentum=0.9)
for t in range(200):
    y_pred = model(x, t % 3)
    loss = criterion(y_pred, y)
    if t % 50 == 49:
        print(t, loss.item())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(f'Result: {model.string()}')
print(model)
print([name for name, _ in model.named_parameters()])
