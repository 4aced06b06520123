# A tiny text dataset of (sentence, label) pairs: what DataLoader's default collate makes of strings and ints,
# and a custom collate_fn that tokenizes and pads each batch.
import torch
from torch.utils.data import DataLoader, Dataset

pairs = [("good movie", 1), ("bad plot", 0), ("great acting and story", 1), ("boring", 0), ("fun", 1)]


class Reviews(Dataset):
    def __len__(self):
        return len(pairs)

    def __getitem__(self, i):
        return pairs[i]


for texts, labels in DataLoader(Reviews(), batch_size=2):
    print(texts, labels)
vocab = {w: i + 1 for i, w in enumerate(sorted({w for s, _ in pairs for w in s.split()}))}


def pad_batch(batch):
    ids = [torch.tensor([vocab[w] for w in s.split()]) for s, _ in batch]
    length = max(len(t) for t in ids)
    padded = torch.zeros(len(ids), length, dtype=torch.long)
    for row, t in enumerate(ids):
        padded[row, :len(t)] = t
    return padded, torch.tensor([label for _, label in batch])


torch.manual_seed(0)
for tokens, labels in DataLoader(Reviews(), batch_size=3, shuffle=True, collate_fn=pad_batch):
    print(tokens, labels)
