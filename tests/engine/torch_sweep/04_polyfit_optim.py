# The fit with torch.optim: RMSprop, as the tutorial, in float64 (RMSprop divides by the root of tiny
# float32 gradients near the optimum, which makes float32 runs of any two libraries drift apart).
import math
import torch

x = torch.linspace(-math.pi, math.pi, 2000, dtype=torch.float64)
y = torch.sin(x) + 0.1 * x ** 2 + 0.2
p = torch.tensor([1, 2, 3])
xx = x.unsqueeze(-1).pow(p)
model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1)).double()
torch.nn.init.constant_(model[0].weight, 0.01)
torch.nn.init.zeros_(model[0].bias)
loss_fn = torch.nn.MSELoss(reduction='sum')

optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-3)
for t in range(400):
    y_pred = model(xx)
    loss = loss_fn(y_pred, y)
    if t % 100 == 99:
        print(t, round(loss.item(), 3))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

linear_layer = model[0]
print(f'Result: y = {linear_layer.bias.item():.4f} + {linear_layer.weight[:, 0].item():.4f} x + '
      f'{linear_layer.weight[:, 1].item():.4f} x^2 + {linear_layer.weight[:, 2].item():.4f} x^3')
print(optimizer)
print(model[0].weight.dtype, model[0].weight)
