# Module reprs with default and non-default arguments, across layers, activations, norms, losses, RNNs and containers.
import torch
import torch.nn as nn
import torch.nn.functional as F


mods = [nn.Linear(3, 4), nn.Linear(3, 4, bias=False), nn.Conv2d(1, 2, 3), nn.Conv2d(1, 2, (3, 5), stride=2, padding=1, bias=False),
        nn.Conv2d(3, 4, 3, padding="same"), nn.MaxPool2d(2), nn.MaxPool2d(3, stride=1, padding=1), nn.AvgPool2d(2),
        nn.AdaptiveAvgPool2d((1, 1)), nn.AdaptiveAvgPool2d(1), nn.Dropout(), nn.Dropout(0.2), nn.ReLU(), nn.ReLU(inplace=True),
        nn.LeakyReLU(), nn.LeakyReLU(0.2), nn.GELU(), nn.GELU(approximate="tanh"), nn.Softmax(dim=1), nn.Softmax(), nn.LogSoftmax(dim=-1),
        nn.Tanh(), nn.Sigmoid(), nn.SiLU(), nn.Softplus(), nn.Softplus(beta=2, threshold=10), nn.Flatten(), nn.Flatten(0),
        nn.Unflatten(1, (2, 3)), nn.Identity(), nn.Embedding(10, 3), nn.Embedding(10, 3, padding_idx=0),
        nn.LayerNorm(4), nn.LayerNorm([2, 3], eps=1e-6, elementwise_affine=False), nn.BatchNorm1d(4), nn.BatchNorm2d(3, momentum=None, affine=False),
        nn.MSELoss(), nn.MSELoss(reduction="sum"), nn.L1Loss(), nn.CrossEntropyLoss(), nn.CrossEntropyLoss(label_smoothing=0.1),
        nn.NLLLoss(), nn.BCELoss(), nn.BCEWithLogitsLoss(), nn.SmoothL1Loss(), nn.HuberLoss(), nn.HuberLoss(delta=0.5),
        nn.LSTM(3, 4), nn.GRU(3, 4, batch_first=True), nn.RNNCell(3, 4), nn.LSTMCell(3, 4), nn.GRUCell(3, 4, bias=False),
        nn.Softmin(dim=0), nn.MultiheadAttention(8, 2), nn.ModuleList([nn.ReLU()]), nn.ModuleDict({"a": nn.ReLU()}),
        nn.Sequential()]
for m in mods:
    print(m)
