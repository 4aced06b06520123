# Normalization running statistics (cumulative momentum, no tracking, 2-D), Embedding padding gradients, RNN/LSTM/GRU
# and cells on fixed weights with initial states, their size errors, and pooling/convolution variants.
import torch
import torch.nn as nn
import torch.nn.functional as F

def attempt(label, fn):
    try:
        print(label, fn())
    except Exception as exc:
        print(label, "ERROR", type(exc).__name__, exc)

def fill(m):
    with torch.no_grad():
        for i, p in enumerate(m.parameters()):
            p.copy_(torch.sin(torch.arange(p.numel(), dtype=torch.float32) * 0.7 + i).reshape(p.shape) * 0.4)
    return m

x = torch.cos(torch.arange(24.0)).reshape(4, 3, 2)
bn = nn.BatchNorm1d(3, momentum=None)
for _ in range(3):
    bn(x * (_ + 1))
attempt("bn cumulative", lambda: (bn.running_mean, bn.running_var, bn.num_batches_tracked))
bn2 = nn.BatchNorm1d(3, track_running_stats=False).eval()
attempt("bn no stats eval", lambda: bn2(x)[0])
bn3 = nn.BatchNorm2d(2, affine=False)
attempt("bn2d", lambda: (bn3(x.reshape(2, 2, 3, 2))[0, 0], bn3.running_var))
attempt("ln nobias", lambda: nn.LayerNorm(2, bias=False)(x)[0])
attempt("ln bias attr", lambda: nn.LayerNorm(2, bias=False).bias)
e = nn.Embedding(4, 2, padding_idx=0)
out = e(torch.tensor([[0, 1], [1, 3]])).sum()
out.backward()
attempt("emb pad grad", lambda: e.weight.grad)
attempt("emb pretrained", lambda: (nn.Embedding.from_pretrained(torch.eye(3)).weight.requires_grad, nn.Embedding.from_pretrained(torch.eye(3), freeze=False).weight.requires_grad))
lstm = fill(nn.LSTM(2, 3, num_layers=2, bidirectional=True))
h0 = torch.zeros(4, 3, 3) + 0.1
c0 = torch.zeros(4, 3, 3) - 0.2
attempt("lstm hx", lambda: lstm(x, (h0, c0))[1][1][-1])
gru = fill(nn.GRU(2, 3, batch_first=True))
attempt("gru", lambda: gru(x)[0][:, -1])
cell = fill(nn.RNNCell(2, 3, nonlinearity="relu"))
attempt("rnncell relu", lambda: cell(x[0]))
attempt("rnncell h", lambda: cell(x[0], torch.ones(3, 3)))
attempt("lstmcell", lambda: fill(nn.LSTMCell(2, 3))(x[0]))
attempt("grucell unbatched", lambda: fill(nn.GRUCell(2, 3))(x[0, 0]))
attempt("rnn wrong hx", lambda: nn.RNN(2, 3)(x, torch.zeros(2, 3, 3)))
attempt("rnn wrong input", lambda: nn.RNN(2, 3)(torch.ones(4, 3, 5)))
attempt("lstm 4d", lambda: nn.LSTM(2, 3)(torch.ones(1, 4, 3, 2)))
img = torch.sin(torch.arange(50.0)).reshape(1, 2, 5, 5)
attempt("maxpool pad", lambda: F.max_pool2d(img, 3, stride=2, padding=1))
attempt("avgpool pad", lambda: F.avg_pool2d(img, 3, stride=2, padding=1))
attempt("maxpool rect", lambda: nn.MaxPool2d((2, 3), stride=(1, 2))(img).shape)
attempt("conv rect", lambda: fill(nn.Conv2d(2, 1, (3, 2), stride=(2, 1), padding=(1, 0)))(img))
attempt("conv same", lambda: fill(nn.Conv2d(2, 1, 3, padding="same"))(img).shape)
attempt("adaptive 1", lambda: F.adaptive_avg_pool2d(img, 1).flatten())
attempt("adaptive rect", lambda: nn.AdaptiveAvgPool2d((1, 5))(img).shape)
attempt("adaptive none", lambda: nn.AdaptiveAvgPool2d((None, 1))(img).shape)
attempt("cell wrong input", lambda: nn.RNNCell(2, 3)(torch.ones(4, 5)))
attempt("lstmcell wrong input", lambda: nn.LSTMCell(2, 3)(torch.ones(4, 5)))
attempt("cell wrong h", lambda: nn.GRUCell(2, 3)(torch.ones(4, 2), torch.ones(4, 4)))
attempt("cell 3d", lambda: nn.RNNCell(2, 3)(torch.ones(1, 4, 2)))
attempt("lstm wrong input", lambda: nn.LSTM(2, 3)(torch.ones(4, 3, 5)))
attempt("gru wrong input bf", lambda: nn.GRU(2, 3, batch_first=True)(torch.ones(4, 3, 5)))
attempt("rnn unbatched wrong", lambda: nn.RNN(2, 3)(torch.ones(4, 5)))
attempt("rnn double model", lambda: nn.RNN(2, 3).double()(torch.ones(1, 1, 2)))
