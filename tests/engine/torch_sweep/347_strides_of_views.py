# Tensor.stride(), storage_offset() and is_contiguous() of views as PyTorch lays them out: transpose, permute,
# slices, select, expand, unsqueeze, view, narrow, chunk/split/unbind, advanced indexing (a row-major copy), empty.
import torch
x = torch.arange(24.).reshape(2, 3, 4)
cases = {
 "x": x, "t": x.transpose(0, 2), "perm": x.permute(1, 0, 2), "slice": x[:, 1:, ::2], "sel": x[1], "sel2": x[:, 2],
 "exp": torch.ones(3, 1).expand(3, 4), "exp2": torch.arange(3.).expand(2, 3), "unsq": torch.arange(3.).unsqueeze(0),
 "unsq1": torch.arange(3.).unsqueeze(1), "view": x.view(6, 4), "T": x[0].T, "narrow": x.narrow(2, 1, 2),
 "flat": x.flatten(), "row": x[0, 1], "scalar": x[0, 1, 2], "neg": x[..., 1:3], "sq": torch.zeros(1, 3, 1).squeeze(),
 "cont": x.transpose(0, 1).contiguous(), "add": x.transpose(0, 2) + 1, "ones": torch.ones(2, 1, 3), "empty": torch.zeros(0, 3),
 "mT": x.mT, "chunk": x.chunk(2, dim=2)[1], "split": x.split(1, dim=1)[2],
 "unbind": x.unbind(1)[1], "idx": x[:, [0, 2]], "rep": torch.arange(3.).repeat(2), "detach": x.t() if False else x[0].t().detach(),
 "long": torch.arange(6).view(2, 3)[:, 1], "bool": (x > 3)[1:], "unfold0": x.view(-1)[3:7],
}
for k, v in cases.items():
    print(k, tuple(v.shape), v.stride(), v.storage_offset(), v.is_contiguous(), v.stride(0) if v.dim() else None, v.stride(-1) if v.dim() else None)
e = torch.zeros(2, 0, 3)
print(e.stride(), e.is_contiguous(), x.stride(1), x.stride(-3), torch.tensor(5.).stride())
for bad in (3, -4):
    try:
        x.stride(bad)
    except IndexError as err:
        print(err)
y = x.transpose(1, 2)
print(y.contiguous().stride(), y.reshape(2, 12).stride(), y.is_contiguous(), y.contiguous().is_contiguous())
z = x[:, :, 1]
z2 = z.unsqueeze(0)
print(z.stride(), z2.stride(), z2.storage_offset(), z.t().stride())
