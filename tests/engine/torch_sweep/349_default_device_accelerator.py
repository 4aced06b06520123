# torch.accelerator and torch.set_default_device on a machine without a GPU: nothing is available, "cpu" is
# the default device, the usual device-picking idioms choose the CPU, and asking for an accelerator's index fails.
import torch
a = torch.accelerator
print(a.is_available(), a.current_accelerator(), a.device_count(), a.current_accelerator(check_available=True))
try:
    print(a.current_device_index())
except RuntimeError as e:
    print(type(e).__name__, e)
torch.set_default_device("cpu")
print(torch.get_default_device(), torch.ones(2).device)
torch.set_default_device(None)
print(torch.get_default_device())
torch.set_default_device(torch.device("cpu"))
device = torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"
print(device, torch.zeros(2, device=device).device)
torch.set_default_device("cuda" if torch.cuda.is_available() else "cpu")
print(torch.randn(2, 2).device, torch.get_default_device())
