"""RNN/LSTM/GRU against numpy re-implementations of PyTorch's equations, gradients against finite
differences (float64), and PyTorch's parameter names, shapes, reprs and output layout."""
import copy
import math

import numpy as np
import pytest

from engine import creation, nn
from engine.tensor import Tensor

RNG = np.random.default_rng(3)


def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


def _np_cell(mode, x, state, w_ih, w_hh, b_ih, b_hh):
    if mode == "LSTM":
        h, c = state
        i, f, g, o = np.split(x @ w_ih.T + b_ih + h @ w_hh.T + b_hh, 4, axis=1)
        c = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
        return _sigmoid(o) * np.tanh(c), c
    if mode == "GRU":
        i_r, i_z, i_n = np.split(x @ w_ih.T + b_ih, 3, axis=1)
        h_r, h_z, h_n = np.split(state @ w_hh.T + b_hh, 3, axis=1)
        r, z = _sigmoid(i_r + h_r), _sigmoid(i_z + h_z)
        n = np.tanh(i_n + r * h_n)
        return (1 - z) * n + z * state
    return np.tanh(x @ w_ih.T + b_ih + state @ w_hh.T + b_hh)


def _np_rnn(mode, module, x_bf):
    """PyTorch's multi-layer, bidirectional recurrence in numpy; x is (batch, time, features)."""
    p = {n: t.array.astype(np.float64) for n, t in module.named_parameters()}
    layer_in = x_bf.astype(np.float64)
    batch, steps, hidden = x_bf.shape[0], x_bf.shape[1], module.hidden_size
    h_n, c_n = [], []
    for layer in range(module.num_layers):
        outs = []
        for suffix in ("", "_reverse")[:2 if module.bidirectional else 1]:
            zero = np.zeros((batch, hidden))
            state = (zero, zero) if mode == "LSTM" else zero
            seq = [None] * steps
            for t in (range(steps) if not suffix else range(steps - 1, -1, -1)):
                state = _np_cell(mode, layer_in[:, t], state, *(p[f"{k}_l{layer}{suffix}"]
                                                                for k in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")))
                seq[t] = state[0] if mode == "LSTM" else state
            outs.append(np.stack(seq, 1))
            h_n.append(state[0] if mode == "LSTM" else state)
            if mode == "LSTM":
                c_n.append(state[1])
        layer_in = np.concatenate(outs, axis=2)
    return layer_in, np.stack(h_n), (np.stack(c_n) if c_n else None)


@pytest.mark.parametrize("cls,mode", [(nn.LSTM, "LSTM"), (nn.GRU, "GRU"), (nn.RNN, "RNN")])
def test_multilayer_bidirectional_forward_matches_numpy(cls, mode):
    creation.manual_seed(0)
    module = cls(3, 4, num_layers=2, batch_first=True, bidirectional=True)
    x = RNG.standard_normal((2, 5, 3)).astype(np.float32)
    out, state = module(Tensor(x))
    ref_out, ref_h, ref_c = _np_rnn(mode, module, x)
    h = state[0] if mode == "LSTM" else state
    assert out.shape == (2, 5, 8) and h.shape == (4, 2, 4)
    np.testing.assert_allclose(out.array, ref_out, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(h.array, ref_h, rtol=1e-4, atol=1e-5)
    if mode == "LSTM":
        np.testing.assert_allclose(state[1].array, ref_c, rtol=1e-4, atol=1e-5)


def _loss(module, x, weights):
    out, _ = module(x)
    return (out * Tensor(weights)).sum()


@pytest.mark.parametrize("cls", [nn.LSTM, nn.GRU])
def test_gradients_match_finite_differences(cls):
    module = cls(2, 3).double()
    x = RNG.standard_normal((4, 1, 2))
    weights = RNG.standard_normal((4, 1, 3))
    xt = Tensor(x.copy(), requires_grad=True)
    _loss(module, xt, weights).backward()
    eps = 1e-6
    for target, grad in [(module.weight_hh_l0.array, module.weight_hh_l0.grad.array), (x, xt.grad.array)]:
        for idx in [(0, 0), (1, 1), (2, 0)] if target.ndim == 2 else [(0, 0, 0), (3, 0, 1)]:
            old = target[idx]
            target[idx] = old + eps
            up = float(_loss(module, Tensor(x), weights).array)
            target[idx] = old - eps
            down = float(_loss(module, Tensor(x), weights).array)
            target[idx] = old
            assert grad[idx] == pytest.approx((up - down) / (2 * eps), rel=1e-5, abs=1e-8)


def test_names_shapes_init_and_repr_follow_pytorch():
    lstm = nn.LSTM(10, 20, num_layers=2, batch_first=True, dropout=0.5, bidirectional=True)
    shapes = {n: tuple(p.shape) for n, p in lstm.named_parameters()}
    assert shapes["weight_ih_l0"] == (80, 10) and shapes["weight_ih_l1_reverse"] == (80, 40)
    assert shapes["bias_hh_l1"] == (80,) and len(shapes) == 16
    bound = 1 / math.sqrt(20)
    assert all(np.abs(p.array).max() <= bound for p in lstm.parameters())
    assert repr(lstm) == "LSTM(10, 20, num_layers=2, batch_first=True, dropout=0.5, bidirectional=True)"
    assert repr(nn.GRU(3, 4, bias=False)) == "GRU(3, 4, bias=False)"
    assert repr(nn.RNN(3, 4, nonlinearity="relu")) == "RNN(3, 4)"      # PyTorch's RNNBase leaves it out
    assert repr(nn.RNNCell(3, 4, nonlinearity="relu")) == "RNNCell(3, 4, nonlinearity=relu)"   # RNNCell shows it
    assert repr(nn.LSTMCell(3, 4)) == "LSTMCell(3, 4)"


def test_initial_state_unbatched_input_and_cells():
    lstm = nn.LSTM(3, 4)
    x = creation.randn(5, 3)                     # unbatched: (time, features)
    out, (h, c) = lstm(x)
    assert out.shape == (5, 4) and h.shape == (1, 4) and c.shape == (1, 4)
    h0 = creation.randn(1, 2, 4)
    _, h_n = nn.GRU(3, 4)(creation.randn(5, 2, 3), h0)
    assert h_n.shape == (1, 2, 4)
    with pytest.raises(RuntimeError, match=r"Expected hidden size \(1, 2, 4\), got \[2, 4\]"):
        nn.GRU(3, 4)(creation.randn(5, 2, 3), creation.randn(2, 4))
    cell = nn.GRUCell(3, 4)
    x1 = creation.randn(2, 3)
    h1 = cell(x1)
    p = {n: t.array.astype(np.float64) for n, t in cell.named_parameters()}
    ref = _np_cell("GRU", x1.array.astype(np.float64), np.zeros((2, 4)), p["weight_ih"], p["weight_hh"],
                   p["bias_ih"], p["bias_hh"])
    np.testing.assert_allclose(h1.array, ref, rtol=1e-5, atol=1e-6)


def test_an_input_of_another_dtype_than_the_weights_is_refused_as_pytorch_does():
    with pytest.raises(ValueError, match=r"RNN input dtype \(torch.float64\) does not match weight dtype "
                                         r"\(torch.float32\). Convert input: input.to\(torch.float32\), or convert "
                                         r"model: model.to\(torch.float64\)"):
        nn.LSTM(2, 3)(creation.randn(1, 1, 2).double())
    assert nn.GRU(2, 3).double()(creation.randn(1, 1, 2).double())[0].dtype == creation.randn(1).double().dtype


def test_wrong_input_and_hidden_sizes_fail_with_pytorchs_words():
    with pytest.raises(RuntimeError, match=r"input.size\(-1\) must be equal to input_size. Expected 2, got 5"):
        nn.GRU(2, 3, batch_first=True)(creation.randn(4, 3, 5))
    with pytest.raises(RuntimeError, match="input has inconsistent input_size: got 5 expected 2"):
        nn.LSTMCell(2, 3)(creation.randn(4, 5))
    with pytest.raises(RuntimeError, match="hidden1 has inconsistent hidden_size: got 4, expected 3"):
        nn.LSTMCell(2, 3)(creation.randn(4, 2), (creation.randn(4, 3), creation.randn(4, 4)))
    with pytest.raises(ValueError, match="RNNCell: Expected input to be 1D or 2D, got 3D instead"):
        nn.RNNCell(2, 3)(creation.randn(1, 4, 2))


# Recurrent layers lay out their output as PyTorch's RNN.cpp does: a bidirectional layer concatenates the
# two directions' stacked outputs (grad_fn CatBackward0, not a stack of per-step concatenations), and
# dropout between layers acts on a layer's whole output, in training only.
@pytest.mark.parametrize("cls", [nn.RNN, nn.LSTM, nn.GRU])
def test_a_bidirectional_output_is_the_directions_concatenated(cls):
    creation.manual_seed(0)
    module = cls(3, 2, num_layers=2, bidirectional=True)
    output, hidden = module(Tensor(np.random.default_rng(1).standard_normal((4, 2, 3)).astype(np.float32)))
    assert type(output.grad_fn).__name__ == "CatBackward0"
    h_n = hidden[0] if cls is nn.LSTM else hidden
    # The last layer's forward direction ends at the last step, its reverse direction at the first.
    np.testing.assert_array_equal(output.array[-1, :, :2], h_n.array[2])
    np.testing.assert_array_equal(output.array[0, :, 2:], h_n.array[3])


@pytest.mark.parametrize("cls", [nn.RNN, nn.GRU])
def test_a_unidirectional_output_is_the_steps_stacked(cls):
    output, _ = cls(3, 2)(Tensor(np.ones((4, 2, 3), np.float32)))
    assert type(output.grad_fn).__name__ == "StackBackward0"


def test_dropout_between_layers_acts_only_in_training():
    creation.manual_seed(0)
    module = nn.GRU(2, 64, num_layers=2, dropout=0.5)
    x = Tensor(np.ones((3, 1, 2), np.float32))
    trained, _ = module(x)
    module.eval()
    first, _ = module(x)
    second, _ = module(x)
    np.testing.assert_array_equal(first.array, second.array)
    assert not np.array_equal(trained.array, first.array)


def test_a_float32_lstm_layer_is_named_as_pytorchs_cpu_kernel_and_its_gradients_are_unchanged():
    # PyTorch's CPU LSTM runs a float32 layer as one oneDNN op (MkldnnRnnLayerBackward0, sweep 374); the
    # unrolled graph keeps its gradients: the same as the float64 module's (whose output stays StackBackward0).
    creation.manual_seed(0)
    lstm = nn.LSTM(3, 2, num_layers=2)
    x = np.random.default_rng(2).standard_normal((4, 2, 3))
    output, (h_n, c_n) = lstm(Tensor(x.astype(np.float32)))
    assert type(output.grad_fn).__name__ == "MkldnnRnnLayerBackward0"
    assert type(h_n.grad_fn).__name__ == type(c_n.grad_fn).__name__ == "StackBackward0"
    (output.sum() + c_n.sum()).backward()
    twin = copy.deepcopy(lstm).double()
    twin.zero_grad()
    output64, (_, c_n64) = twin(Tensor(x))
    assert type(output64.grad_fn).__name__ == "StackBackward0"
    (output64.sum() + c_n64.sum()).backward()
    for (name, p), q in zip(lstm.named_parameters(), twin.parameters()):
        np.testing.assert_allclose(p.grad.array, q.grad.array, rtol=1e-4, atol=1e-5, err_msg=name)
