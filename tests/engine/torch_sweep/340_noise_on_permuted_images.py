# The forward (noising) step of a diffusion model on images that arrive channels-last: permute to NCHW (a
# non-contiguous view), add Gaussian noise with randn_like, and a random mask with rand_like.
import torch

torch.manual_seed(0)
images_nhwc = torch.rand(2, 4, 4, 3)
x0 = images_nhwc.permute(0, 3, 1, 2)
print(x0.shape, x0.is_contiguous())
betas = torch.linspace(1e-4, 0.02, 10)
a = (1 - betas).log().cumsum(0).exp()
t = 6
noise = torch.randn_like(x0)
xt = a[t].sqrt() * x0 + (1 - a[t]).sqrt() * noise
print(noise.is_contiguous(), noise[0, 0])
print(xt[1, 2])
keep = torch.rand_like(x0) > 0.25
print(keep[0, 1].int())
print(torch.zeros_like(x0).is_contiguous(), torch.zeros_like(x0.contiguous()).is_contiguous())
print(((xt - a[t].sqrt() * x0) / (1 - a[t]).sqrt() - noise).abs().max() < 1e-5)
