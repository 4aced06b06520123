# The grad_fn of what nn.LSTM/GRU/RNN return on the CPU, as PyTorch 2.13 names it: a float32 LSTM layer runs as one
# oneDNN op (MkldnnRnnLayerBackward0, stacked layers and dropout between them too), float64 and GRU/RNN are
# unrolled (StackBackward0); bidirectional, batch_first and unbatched wrap it. Gradients flow as before.
import torch
torch.manual_seed(0)
x = torch.randn(5, 3, 4)


def names(out, h):
    states = h if isinstance(h, tuple) else (h,)
    return out.grad_fn.name(), [s.grad_fn.name() for s in states]


for label, make, inp in [
        ("LSTM", lambda: torch.nn.LSTM(4, 6), x),
        ("GRU", lambda: torch.nn.GRU(4, 6), x),
        ("RNN", lambda: torch.nn.RNN(4, 6), x),
        ("RNN relu", lambda: torch.nn.RNN(4, 6, nonlinearity="relu"), x),
        ("LSTM 2 layers dropout", lambda: torch.nn.LSTM(4, 6, num_layers=2, dropout=0.5), x),
        ("LSTM bidirectional", lambda: torch.nn.LSTM(4, 6, bidirectional=True), x),
        ("LSTM batch_first", lambda: torch.nn.LSTM(4, 6, batch_first=True), x),
        ("LSTM unbatched", lambda: torch.nn.LSTM(4, 6), x[:, 0]),
        ("LSTM float64", lambda: torch.nn.LSTM(4, 6).double(), x.double())]:
    out, h = make()(inp)
    print(label, *names(out, h))
lstm = torch.nn.LSTM(4, 3)
out, (h_n, c_n) = lstm(x)
print(out.grad_fn)
(out.sum() + c_n.sum()).backward()
print(lstm.weight_ih_l0.grad[:2], lstm.bias_hh_l0.grad[:4])
with torch.no_grad():
    print(lstm(x)[0].grad_fn)
