# Printing what recurrent layers return, as a first RNN lesson does: output and final hidden state of a
# batch_first RNN and GRU, and their shapes.
import torch
import torch.nn as nn

torch.manual_seed(2)
x = torch.randn(2, 3, 4)
rnn = nn.RNN(4, 2, batch_first=True)
out, h = rnn(x)
print(out)
print(h)
print(out.shape, h.shape, torch.allclose(out[:, -1], h[0]))
gru = nn.GRU(4, 2, batch_first=True)
out, h = gru(x)
print(out)
print(out[:, -1], h.squeeze(0))
