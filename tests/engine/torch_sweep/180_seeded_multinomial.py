# torch.multinomial after torch.manual_seed: with and without replacement, on 1-D and 2-D weights, its errors, and
# sampling characters from a softmax with a temperature.
import torch
def attempt(label, fn):
    try:
        print(label, fn())
    except Exception as exc:
        print(label, "ERROR", type(exc).__name__, exc)
torch.manual_seed(0)
w = torch.tensor([0.1, 0.2, 0.3, 0.4])
print(torch.multinomial(w, 1), torch.multinomial(w, 3), torch.multinomial(w, 6, replacement=True))
probs = torch.softmax(torch.tensor([[1.0, 2.0, 0.5, 0.1], [0.0, 0.0, 3.0, 1.0]]), dim=1)
print(torch.multinomial(probs, 2), torch.multinomial(probs, 5, replacement=True), torch.multinomial(probs, 1))
print(torch.multinomial(torch.tensor([0.0, 1.0, 0.0]), 1), torch.multinomial(torch.tensor([1, 2, 3]).float(), 3))
print(torch.multinomial(w.double(), 2), torch.rand(1))
attempt("too many", lambda: torch.multinomial(w, 5))
attempt("negative", lambda: torch.multinomial(torch.tensor([-1.0, 2.0]), 1))
attempt("zero", lambda: torch.multinomial(torch.zeros(3), 1))
attempt("3d", lambda: torch.multinomial(torch.ones(2, 2, 2), 1))
chars = "helo "
logits = torch.tensor([[2.0, 1.0, 0.5, 0.5, 0.1]])
text = ""
for _ in range(12):
    idx = torch.multinomial(torch.softmax(logits / 0.8, dim=-1), num_samples=1).item()
    text += chars[idx]
    logits = logits[:, [4, 0, 1, 2, 3]]
print(repr(text))
