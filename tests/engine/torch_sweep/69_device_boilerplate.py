# The device boilerplate most pasted programs start with, on a machine without a GPU.
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(device, repr(device), device.type, torch.cuda.is_available(), torch.cuda.device_count())
model = nn.Linear(2, 1).to(device)
x = torch.ones(3, 2).to(device)
print(x.device, next(model.parameters()).device, x.is_cuda, x.cpu().device, x.to("cpu", torch.float64).dtype)
print(torch.device("cpu") == x.device, str(torch.device("cpu")), x.to(device=device, dtype=torch.int64))
y = torch.zeros(2, device=device)
print(y, torch.ones(2, device="cpu").device, model(x).detach().cpu().numpy().shape)
print(torch.get_default_dtype(), torch.is_tensor(x), torch.is_floating_point(x), torch.numel(x))
