# Reprs of layers with non-default arguments and of optimizers.
import torch
import torch.nn as nn

layers = [nn.Conv2d(3, 16, kernel_size=(3, 5), stride=(2, 1), padding=(1, 2), bias=False),
          nn.Conv2d(1, 1, 3, padding='same'), nn.MaxPool2d(3, stride=2, padding=1, ceil_mode=True),
          nn.AvgPool2d(2, ceil_mode=False, count_include_pad=False), nn.AdaptiveAvgPool2d(7),
          nn.LSTM(10, 20, num_layers=2, batch_first=True, dropout=0.1), nn.GRU(4, 8, bidirectional=True),
          nn.LayerNorm(8, elementwise_affine=False), nn.LayerNorm([4, 4]),
          nn.Embedding(100, 16), nn.BatchNorm2d(8, eps=1e-3, momentum=0.01), nn.Dropout(0.3, inplace=True),
          nn.Softmax(), nn.LogSoftmax(1), nn.Flatten(0, 1), nn.Unflatten(1, (2, 5)), nn.Identity(),
          nn.LeakyReLU(), nn.ReLU(inplace=True), nn.GELU(), nn.Softplus(beta=2, threshold=10), nn.Tanh(),
          nn.MSELoss(reduction='sum'), nn.L1Loss(), nn.SmoothL1Loss(beta=0.5), nn.HuberLoss(delta=2.0),
          nn.NLLLoss(ignore_index=3), nn.BCELoss(), nn.BCEWithLogitsLoss(pos_weight=torch.tensor([2.0])),
          nn.CrossEntropyLoss(reduction='none'), nn.MultiheadAttention(8, 2, batch_first=True),
          nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16)]
for layer in layers:
    print(layer)
p = [nn.Parameter(torch.zeros(2))]
for opt in [torch.optim.SGD(p, lr=0.1, momentum=0.9, nesterov=True, weight_decay=1e-4), torch.optim.Adam(p, lr=1e-3),
            torch.optim.AdamW(p, lr=3e-4, weight_decay=0.05, betas=(0.9, 0.95))]:
    print(opt)
