# out=(values, indices) for torch.max/min with a dim, torch.sort and torch.topk: the pair filled (resized, with
# PyTorch's warning when it had elements) and returned as torch.return_types.<name>_out; one tensor for max/min
# of a whole tensor or of two; the dtype, tuple and grad refusals.
import warnings
import torch
warnings.simplefilter("always")
x = torch.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]])


def attempt(label, fn):
    try:
        print(label, fn())
    except Exception as exc:
        print(label, "ERROR", type(exc).__name__, str(exc).splitlines()[0])


values, indices = torch.empty(0), torch.empty(0, dtype=torch.long)
result = torch.max(x, 1, out=(values, indices))
print(type(result).__name__, result.values is values, result[1] is indices, values, indices, values._version)
print(torch.min(x, dim=0, keepdim=True, out=(torch.empty(0), torch.empty(0, dtype=torch.long))))
print(torch.sort(x, 1, descending=True, out=(torch.empty(0), torch.empty(0, dtype=torch.long))))
print(torch.sort(x, dim=0, out=[torch.empty(0), torch.empty(0, dtype=torch.long)]))
print(torch.topk(x, 2, out=(torch.empty(0), torch.empty(0, dtype=torch.long))))
print(torch.topk(x, 1, dim=0, largest=False, out=(torch.empty(0), torch.empty(0, dtype=torch.long))))
v, i = torch.zeros(5), torch.zeros(5, dtype=torch.long)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    torch.max(x, 1, out=(v, i))
print(v, i, len(caught), str(caught[0].message)[:50])
v = torch.zeros(2)
torch.max(x, 1, out=(v, torch.empty(0, dtype=torch.long)))
print(v, v._version)
print(torch.max(x, out=torch.empty(0)), torch.min(x, out=torch.empty(0, dtype=torch.float64)))
print(torch.max(x, torch.ones(2, 3) * 2, out=torch.empty(0)))
attempt("indices float", lambda: torch.max(x, 1, out=(torch.empty(0), torch.empty(0))))
attempt("indices int32", lambda: torch.sort(x, out=(torch.empty(0), torch.empty(0, dtype=torch.int32))))
attempt("values double", lambda: torch.topk(x, 1, out=(torch.empty(0, dtype=torch.float64), torch.empty(0, dtype=torch.long))))
attempt("one tensor", lambda: torch.topk(x, 1, out=torch.empty(0)))
attempt("three", lambda: torch.topk(x, 1, out=(torch.empty(0), torch.empty(0, dtype=torch.long), torch.empty(0))))
attempt("one", lambda: torch.max(x, 1, out=(torch.empty(0),)))
attempt("an int", lambda: torch.sort(x, out=(torch.empty(0), 5)))
attempt("an int, topk", lambda: torch.topk(x, 1, out=(torch.empty(0), 5)))
attempt("whole max, result int", lambda: torch.max(x, x, out=torch.empty(0, dtype=torch.long)))
w = x.clone().requires_grad_()
attempt("grad", lambda: torch.max(w, 1, out=(torch.empty(0), torch.empty(0, dtype=torch.long))))
with torch.no_grad():
    print(torch.sort(w, out=(torch.empty(0), torch.empty(0, dtype=torch.long))).values)
