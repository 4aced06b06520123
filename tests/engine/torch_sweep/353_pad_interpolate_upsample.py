# F.pad in its four modes (negative padding crops), F.interpolate (nearest, nearest-exact, linear, bilinear with and
# without align_corners, by size and by scale_factor), nn.Upsample and the padding modules: values, node names,
# gradients, reprs and errors as PyTorch 2.13 prints them.
import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(0)
x = torch.arange(12.).reshape(1, 1, 3, 4).requires_grad_()
for mode in ["constant", "reflect", "replicate", "circular"]:
    y = F.pad(x, (2, 1, 1, 2), mode=mode)
    print(mode, y.shape, y.grad_fn.name() if mode != "circular" else "")
    print(y[0, 0])
    (y * torch.arange(y.numel(), dtype=torch.float32).reshape(y.shape)).sum().backward()
    print(x.grad[0, 0])
    x.grad = None
print(F.pad(x, (1, -1), value=7.0)[0, 0], F.pad(torch.ones(2, 3), (1, 1, 1, 0), "constant", 2.5))
print(F.pad(torch.arange(5.).reshape(1, 5), (2, 2), mode="reflect"), F.pad(torch.arange(4.).reshape(1, 1, 4), (1, 3), mode="replicate"))
for bad in [lambda: F.pad(x, (1, 2, 3)), lambda: F.pad(x, (4, 4), mode="reflect"), lambda: F.pad(torch.ones(3), (1, 1, 1, 1))]:
    try:
        bad()
    except RuntimeError as e:
        print(e)
img = torch.randn(1, 2, 3, 4, requires_grad=True)
for kw in [dict(scale_factor=2), dict(size=(5, 7)), dict(scale_factor=1.5, mode="bilinear"),
           dict(size=(5, 7), mode="bilinear", align_corners=True), dict(scale_factor=2, mode="bilinear", align_corners=False),
           dict(size=(2, 3), mode="bilinear"), dict(scale_factor=(2, 3), mode="nearest-exact"),
           dict(scale_factor=0.7, mode="bilinear", recompute_scale_factor=True)]:
    y = F.interpolate(img, **kw)
    print(kw, y.shape, y.grad_fn.name())
    print(y[0, 1, :2])
    (y * y).sum().backward()
    print(img.grad[0, 0])
    img.grad = None
seq = torch.randn(2, 3, 5)
print(F.interpolate(seq, size=8, mode="linear")[1, 2], F.interpolate(seq, scale_factor=1.7, mode="linear", align_corners=True)[0, 0])
print(F.interpolate(seq, scale_factor=3)[0, 0])
for bad in [lambda: F.interpolate(img, scale_factor=2, align_corners=True),
            lambda: F.interpolate(img, size=4, scale_factor=2), lambda: F.interpolate(seq, size=4, mode="bilinear")]:
    try:
        bad()
    except (ValueError, NotImplementedError) as e:
        print(type(e).__name__, e)
up = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False)
print(up, nn.Upsample(size=(3, 5)), nn.UpsamplingNearest2d(scale_factor=2), nn.UpsamplingBilinear2d(size=4))
print(up(img).shape, nn.UpsamplingBilinear2d(scale_factor=2)(img)[0, 0, 1])
print(nn.ZeroPad2d(2), nn.ZeroPad2d((1, 0, 2, 1))(x).shape, nn.ReflectionPad2d(1), nn.ReplicationPad1d((2, 0)),
      nn.ConstantPad2d(1, -1.0), nn.ConstantPad1d((0, 2), 3.5)(torch.ones(1, 2)))
net = nn.Sequential(nn.Conv2d(2, 4, 3, padding=1), nn.ReLU(), nn.Upsample(scale_factor=2), nn.ReflectionPad2d(1),
                    nn.Conv2d(4, 1, 3))
print(net, net(img).shape)
