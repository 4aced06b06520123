# tests/engine/test_backward_order.py runs this; real PyTorch 2.13 prints "a c g k j i f h e b d".
import torch
torch.manual_seed(0)
names = "abcdefghijk"
ws = [torch.randn(3, requires_grad=True) for _ in names]
for n, w in zip(names, ws):
    w.register_hook(lambda g, n=n: print(n, end=" "))
loss = (torch.stack(ws) * torch.cat(ws[:3] + ws[:3] + ws[:3] + ws[:2]).reshape(11, 3)).sum()
loss.backward()
print()
