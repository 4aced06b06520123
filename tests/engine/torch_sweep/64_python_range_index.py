# Indexing with a Python range (a common way to pick each row's target probability).
import torch

probs = torch.tensor([[0.1, 0.9], [0.8, 0.2], [0.5, 0.5]])
y = torch.tensor([1, 0, 1])
print(probs[range(3), y], probs[range(2)])
