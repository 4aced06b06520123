# Printing what an LSTM returns (sequence first, the default layout): the output, the final hidden and cell
# states, and the last step's output equal to h_n.
import torch
import torch.nn as nn

torch.manual_seed(4)
lstm = nn.LSTM(input_size=3, hidden_size=2)
x = torch.randn(4, 1, 3)
out, (h_n, c_n) = lstm(x)
print(out)
print(h_n, c_n)
print(torch.equal(out[-1], h_n[0]))
