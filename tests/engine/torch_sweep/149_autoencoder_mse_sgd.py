# A tiny autoencoder (4 -> 2 -> 4, tanh) trained with MSELoss and SGD with nesterov momentum and weight decay.
import torch
import torch.nn as nn

data = torch.tensor([[1.0, 0.0, 0.5, 0.2], [0.0, 1.0, 0.3, 0.9], [0.5, 0.5, 0.4, 0.5], [0.9, 0.1, 0.6, 0.1]])
encoder = nn.Sequential(nn.Linear(4, 2), nn.Tanh())
decoder = nn.Linear(2, 4)
model = nn.Sequential(encoder, decoder)
with torch.no_grad():
    for i, (name, p) in enumerate(model.named_parameters()):
        p.copy_(torch.cos(torch.arange(p.numel(), dtype=torch.float32) + i).reshape(p.shape) * 0.4)
        print(name, tuple(p.shape))
opt = torch.optim.SGD(model.parameters(), lr=0.2, momentum=0.9, nesterov=True, weight_decay=1e-3)
loss_fn = nn.MSELoss()
for step in range(60):
    opt.zero_grad(set_to_none=True)
    loss = loss_fn(model(data), data)
    loss.backward()
    opt.step()
    if step % 20 == 19:
        print(step, round(loss.item(), 5))
with torch.no_grad():
    codes = encoder(data)
    print(codes)
    print(decoder(codes) - data)
print(model[0][0].weight.grad is not None, opt.state[model[1].bias]["momentum_buffer"])
