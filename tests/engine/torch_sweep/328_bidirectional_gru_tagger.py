# A bidirectional GRU sequence tagger (Embedding -> GRU(bidirectional) -> Linear per token) trained a few steps
# with cross-entropy over every token; output layout, grad_fn and hidden state shapes printed.
import torch
import torch.nn as nn

torch.manual_seed(21)
vocab, tags, seq_len, batch = 12, 3, 5, 4
tokens = torch.randint(0, vocab, (seq_len, batch))
targets = tokens % tags


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(vocab, 6)
        self.gru = nn.GRU(6, 5, bidirectional=True)
        self.out = nn.Linear(10, tags)

    def forward(self, ids):
        states, h_n = self.gru(self.embed(ids))
        return self.out(states), states, h_n


model = Tagger()
print(model)
logits, states, h_n = model(tokens)
print(states.shape, h_n.shape, states.grad_fn)
print(torch.allclose(states[-1, :, :5], h_n[0]), torch.allclose(states[0, :, 5:], h_n[1]))
opt = torch.optim.Adam(model.parameters(), lr=0.05)
for step in range(5):
    opt.zero_grad()
    logits, _, _ = model(tokens)
    loss = nn.functional.cross_entropy(logits.reshape(-1, tags), targets.reshape(-1))
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 4))
with torch.no_grad():
    pred = model(tokens)[0].argmax(-1)
print(pred)
print("token accuracy:", (pred == targets).float().mean().item())
print(model.gru.weight_hh_l0_reverse.grad.norm())
