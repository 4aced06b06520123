# Seeded default initialisation of recurrent layers, cells, multi-head attention and a transformer encoder layer,
# drawn in PyTorch's order, and a forward pass of a fresh RNN.
import torch
import torch.nn as nn
torch.manual_seed(0)
rnn = nn.RNN(2, 3)
print([n for n, _ in rnn.named_parameters()], rnn.weight_ih_l0[0], rnn.bias_hh_l0)
lstm = nn.LSTM(2, 2, batch_first=True)
print(lstm.weight_hh_l0[0], lstm.bias_ih_l0[:3])
gru = nn.GRU(2, 2)
print(gru.weight_ih_l0[0])
cell = nn.LSTMCell(2, 2)
print(cell.bias_hh[:2])
mha = nn.MultiheadAttention(4, 2)
print(mha.in_proj_weight[0], mha.out_proj.weight[0], mha.in_proj_bias[:2], mha.out_proj.bias[:2])
enc = nn.TransformerEncoderLayer(d_model=4, nhead=2, dim_feedforward=8)
print(enc.linear1.weight[0], enc.self_attn.in_proj_weight[0, :2], enc.norm1.weight)
print(torch.rand(2))
x = torch.randn(3, 1, 2)
out, h = nn.RNN(2, 3)(x)
print(out[-1], h)
