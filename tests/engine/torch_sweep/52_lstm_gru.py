# RNN, LSTM and GRU with weights set by hand: outputs, final states and gradients.
import torch
import torch.nn as nn

torch.manual_seed(0)
for cls in (nn.RNN, nn.LSTM, nn.GRU):
    rnn = cls(input_size=2, hidden_size=3, batch_first=True)
    with torch.no_grad():
        for i, (name, p) in enumerate(rnn.named_parameters()):
            p.copy_(torch.linspace(-0.5, 0.5, p.numel()).reshape(p.shape) * (1 if i % 2 == 0 else 0.3))
    x = torch.linspace(-1, 1, 2 * 4 * 2).reshape(2, 4, 2).requires_grad_()
    out, state = rnn(x)
    print(cls.__name__, tuple(out.shape), [n for n, _ in rnn.named_parameters()])
    print(out[:, -1])
    print(state if cls is not nn.LSTM else state[1])
    out.sum().backward()
    print(x.grad[1])
    print(rnn)
