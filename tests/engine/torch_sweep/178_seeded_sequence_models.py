# A seeded sequence model (embedding, two-layer LSTM, bidirectional GRU, linear head) trained with AdamW, then seeded
# multi-head attention and a two-layer transformer encoder with causal and padding masks in eval mode.
import torch
import torch.nn as nn
torch.manual_seed(0)
vocab, dim = 20, 8
tokens = torch.randint(0, vocab, (3, 5))
class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim, padding_idx=0)
        self.lstm = nn.LSTM(dim, 6, batch_first=True, num_layers=2)
        self.gru = nn.GRU(6, 4, batch_first=True, bidirectional=True)
        self.head = nn.Linear(8, 3)
    def forward(self, x):
        h, (hn, cn) = self.lstm(self.emb(x))
        g, gn = self.gru(h)
        return self.head(g), hn, gn
model = Tagger()
out, hn, gn = model(tokens)
print(out[0], hn.shape, gn[1])
loss = nn.functional.cross_entropy(out.reshape(-1, 3), torch.randint(0, 3, (15,)))
loss.backward()
print(loss, model.lstm.weight_hh_l1.grad[0], model.emb.weight.grad[0])
opt = torch.optim.AdamW(model.parameters(), lr=0.01)
for _ in range(5):
    opt.zero_grad()
    out, _, _ = model(tokens)
    l = out.pow(2).mean()
    l.backward()
    opt.step()
print(l, model.head.bias)
mha = nn.MultiheadAttention(8, 2, batch_first=True)
enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, batch_first=True), num_layers=2)
enc.eval(); mha.eval()
x = torch.randn(2, 4, 8)
a, w = mha(x, x, x)
print(a[0, 0], w[1])
mask = torch.triu(torch.ones(4, 4, dtype=torch.bool), diagonal=1)
print(enc(x, mask=mask)[1, 2])
print(enc(x, src_key_padding_mask=torch.tensor([[False, False, True, True], [False, False, False, False]]))[0, 1])
