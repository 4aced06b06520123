# torch.normal with tensor or number means and standard deviations, after torch.manual_seed.
import torch
torch.manual_seed(5)
print(torch.normal(torch.zeros(3), 2.0), torch.normal(1.0, torch.ones(3) * 0.5), torch.normal(torch.arange(20.0), torch.ones(20))[-3:], torch.normal(0.0, 1.0, (2, 2)))
