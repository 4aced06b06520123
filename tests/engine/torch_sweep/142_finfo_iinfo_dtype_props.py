# torch.finfo/torch.iinfo limits (eps for numerical stability) and dtype properties (is_signed, itemsize).
import torch
def attempt(label, fn):
    try:
        print(label, fn())
    except Exception as exc:
        print(label, "ERROR", type(exc).__name__, exc)
for d in [torch.float16, torch.float32, torch.float64]:
    f = torch.finfo(d)
    print(f, f.bits, f.eps, f.max, f.min, f.tiny, f.resolution, f.dtype)
for d in [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]:
    i = torch.iinfo(d)
    print(i, i.bits, i.min, i.max, i.dtype)
attempt("finfo default", lambda: torch.finfo().eps)
attempt("finfo int", lambda: torch.finfo(torch.int64))
attempt("iinfo float", lambda: torch.iinfo(torch.float32))
attempt("iinfo bool", lambda: torch.iinfo(torch.bool))
attempt("props", lambda: [(d, d.is_signed, d.itemsize, d.is_floating_point, d.is_complex) for d in [torch.bool, torch.uint8, torch.int8, torch.int32, torch.float16, torch.float64]])
x = torch.tensor([1e-30, 0.0])
print(torch.log(x + torch.finfo(x.dtype).eps), x.clamp(min=torch.finfo(torch.float32).tiny))
