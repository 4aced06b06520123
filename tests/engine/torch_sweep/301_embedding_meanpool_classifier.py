# A bag-of-words text classifier: Embedding (with padding_idx), mean over the tokens, Linear, trained with Adam.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(42)
vocab = ["<pad>", "good", "great", "fun", "bad", "awful", "boring", "movie", "the", "was"]
word_to_ix = {w: i for i, w in enumerate(vocab)}
sentences = [
    ("the movie was great", 1), ("good fun", 1), ("the movie was awful", 0),
    ("boring bad movie", 0), ("great great fun", 1), ("the was boring", 0),
]


def encode(text, length=4):
    ids = [word_to_ix[w] for w in text.split()]
    return ids + [0] * (length - len(ids))


x = torch.tensor([encode(s) for s, _ in sentences])
y = torch.tensor([label for _, label in sentences])
print(x)


class BagOfWords(nn.Module):
    def __init__(self, vocab_size, dim, classes):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.fc = nn.Linear(dim, classes)

    def forward(self, ids):
        mask = (ids != 0).unsqueeze(-1).float()
        summed = (self.embed(ids) * mask).sum(dim=1)
        mean = summed / mask.sum(dim=1)
        return self.fc(mean)


model = BagOfWords(len(vocab), 5, 2)
print(model.embed.weight[0], model.embed.weight.shape)
opt = torch.optim.Adam(model.parameters(), lr=0.05)
for epoch in range(8):
    opt.zero_grad()
    logits = model(x)
    loss = F.cross_entropy(logits, y)
    loss.backward()
    opt.step()
    acc = (logits.argmax(1) == y).sum().item() / len(y)
    print(epoch, round(loss.item(), 4), acc)
print("pad row grad:", model.embed.weight.grad[0])
print("word grads nonzero:", (model.embed.weight.grad.abs().sum(1) > 0).tolist())
with torch.no_grad():
    test = torch.tensor([encode("fun movie"), encode("awful boring")])
    print(F.softmax(model(test), dim=1))
