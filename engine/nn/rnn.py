"""Recurrent layers: RNN, LSTM, GRU and their cells, unrolled over time with registered ops (so the
recorded graph shows every timestep and the gradients are exact). Parameter names, shapes, gate
order (LSTM: i, f, g, o; GRU: r, z, n), initialization bounds and the output layout follow PyTorch."""
from __future__ import annotations

import math

import numpy as np

from engine import functional as F
from engine.errors import UnsupportedError
from engine.nn import init
from engine.nn.module import Module
from engine.nn.parameter import Parameter
from engine.tensor import Tensor, apply

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _rnn_step(activation):
    def step(x, h, w_ih, w_hh, b_ih, b_hh):
        return activation(F.add(F.linear(x, w_ih, b_ih), F.linear(h, w_hh, b_hh)))
    return step


def _lstm_step(x, state, w_ih, w_hh, b_ih, b_hh):
    h, c = state
    gates = F.add(F.linear(x, w_ih, b_ih), F.linear(h, w_hh, b_hh))
    i, f, g, o = F.chunk(gates, 4, 1)
    c = F.add(F.mul(F.sigmoid(f), c), F.mul(F.sigmoid(i), F.tanh(g)))
    return F.mul(F.sigmoid(o), F.tanh(c)), c


def _gru_step(x, h, w_ih, w_hh, b_ih, b_hh):
    i_r, i_z, i_n = F.chunk(F.linear(x, w_ih, b_ih), 3, 1)
    h_r, h_z, h_n = F.chunk(F.linear(h, w_hh, b_hh), 3, 1)
    r = F.sigmoid(F.add(i_r, h_r))
    z = F.sigmoid(F.add(i_z, h_z))
    n = F.tanh(F.add(i_n, F.mul(r, h_n)))
    return F.add(F.mul(F.sub(1.0, z), n), F.mul(z, h))


_STEPS = {"RNN_TANH": _rnn_step(F.tanh), "RNN_RELU": _rnn_step(F.relu), "LSTM": _lstm_step, "GRU": _gru_step}


def _reset_uniform(module: Module, hidden_size: int) -> None:
    stdv = 1.0 / math.sqrt(hidden_size) if hidden_size > 0 else 0
    for p in module.parameters():
        init.uniform_(p, -stdv, stdv)


class RNNBase(Module):
    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0,
                 device=None, dtype=None):
        super().__init__()
        if proj_size:
            raise UnsupportedError("LSTM(proj_size=...) is not supported by Dagscope.")
        if not 0 <= dropout <= 1:
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        self.mode, self.input_size, self.hidden_size, self.num_layers = mode, input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout = bias, batch_first, float(dropout)
        self.bidirectional, self.proj_size = bidirectional, proj_size
        gate_size = _GATES[mode] * hidden_size
        directions = 2 if bidirectional else 1
        for layer in range(num_layers):
            layer_input = input_size if layer == 0 else hidden_size * directions
            for suffix in ("", "_reverse")[:directions]:
                self.register_parameter(f"weight_ih_l{layer}{suffix}", _zeros(gate_size, layer_input))
                self.register_parameter(f"weight_hh_l{layer}{suffix}", _zeros(gate_size, hidden_size))
                if bias:
                    self.register_parameter(f"bias_ih_l{layer}{suffix}", _zeros(gate_size))
                    self.register_parameter(f"bias_hh_l{layer}{suffix}", _zeros(gate_size))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        _reset_uniform(self, self.hidden_size)

    def flatten_parameters(self) -> None:
        """Packs the weights into one buffer for cuDNN in PyTorch; on the CPU it does nothing, here too."""

    def _weights(self, layer: int, suffix: str) -> tuple:
        get = self._parameters.get
        return (get(f"weight_ih_l{layer}{suffix}"), get(f"weight_hh_l{layer}{suffix}"),
                get(f"bias_ih_l{layer}{suffix}"), get(f"bias_hh_l{layer}{suffix}"))

    def forward(self, input, hx=None):
        unbatched = input.ndim == 2
        if input.ndim not in (2, 3):
            raise ValueError(f"{type(self).__name__}: Expected input to be 2D or 3D, got {input.ndim}D instead")
        weight = self.weight_ih_l0
        if input.array.dtype != weight.array.dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype ({weight.dtype}). Convert "
                             f"input: input.to({weight.dtype}), or convert model: model.to({input.dtype})")
        if input.array.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                               f"{input.array.shape[-1]}")
        x = F.unsqueeze(input, 1) if unbatched else (F.transpose(input, 0, 1) if self.batch_first else input)
        steps, batch = x.array.shape[0], x.array.shape[1]
        directions = 2 if self.bidirectional else 1
        h0, c0 = self._initial_state(hx, batch, directions, unbatched, x.array.dtype)
        step = _STEPS[self.mode]
        # Laid out as PyTorch's RNN.cpp: each layer unbinds its input over time, each direction stacks its
        # step outputs, a bidirectional layer concatenates the two on the feature dim (the output's grad_fn
        # is then CatBackward0), and dropout between layers acts on a layer's whole output.
        layer_input = x
        final_h, final_c = [], []
        for layer in range(self.num_layers):
            steps_in = F.unbind(layer_input, 0)
            outputs_by_direction = []
            for d, suffix in enumerate(("", "_reverse")[:directions]):
                k = layer * directions + d
                state = (h0[k], c0[k]) if self.mode == "LSTM" else h0[k]
                order = range(steps) if d == 0 else range(steps - 1, -1, -1)
                outs = [None] * steps
                for t in order:
                    state = step(steps_in[t], state, *self._weights(layer, suffix))
                    outs[t] = state[0] if self.mode == "LSTM" else state
                layer_out = F.stack(outs, 0)
                if self.mode == "LSTM" and layer_out.grad_fn is not None and x.array.dtype == np.float32:
                    # PyTorch's CPU LSTM runs a float32 layer as one oneDNN op, mkldnn_rnn_layer (float64,
                    # GRU and RNN take the unrolled path, as here): its output shows that op's grad_fn
                    layer_out.grad_fn.rename("MkldnnRnnLayerBackward0")
                outputs_by_direction.append(layer_out)
                final_h.append(state[0] if self.mode == "LSTM" else state)
                if self.mode == "LSTM":
                    final_c.append(state[1])
            layer_input = F.cat(outputs_by_direction, 2) if directions == 2 else outputs_by_direction[0]
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_input = F.dropout(layer_input, self.dropout, True)
        output = layer_input
        h_n = F.stack(final_h, 0)
        if unbatched:
            output, h_n = F.squeeze(output, 1), F.squeeze(h_n, 1)
        elif self.batch_first:
            # PyTorch's RNN and GRU turn their output batch-first with an in-place transpose_, LSTM not
            fn = "transpose_" if self.mode != "LSTM" else "transpose"
            output = apply("transpose", output, dim0=0, dim1=1, fn=fn)
        if self.mode == "LSTM":
            c_n = F.stack(final_c, 0)
            return output, (h_n, F.squeeze(c_n, 1) if unbatched else c_n)
        return output, h_n

    def _initial_state(self, hx, batch: int, directions: int, unbatched: bool, dtype) -> tuple:
        shape = (self.num_layers * directions, batch, self.hidden_size)
        zeros = Tensor(np.zeros(shape, dtype))
        if hx is None:
            return zeros, zeros
        h, c = hx if self.mode == "LSTM" else (hx, None)
        if unbatched:
            h, c = F.unsqueeze(h, 1), (F.unsqueeze(c, 1) if c is not None else None)
        for name, t in (("hidden", h), ("cell", c)):
            if t is not None and tuple(t.array.shape) != shape:
                raise RuntimeError(f"Expected {name} size {tuple(shape)}, got {list(t.array.shape)}")
        return h, (c if c is not None else zeros)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s


class RNN(RNNBase):
    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, nonlinearity: str = "tanh",
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 device=None, dtype=None):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__("RNN_" + nonlinearity.upper(), input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional)
        self.nonlinearity = nonlinearity    # not in the repr: PyTorch's RNNBase.extra_repr leaves it out


class LSTM(RNNBase):
    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)


class GRU(RNNBase):
    def __init__(self, *args, **kwargs):
        super().__init__("GRU", *args, **kwargs)


class _CellBase(Module):
    def __init__(self, mode: str, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None):
        super().__init__()
        self.mode, self.input_size, self.hidden_size, self.bias = mode, input_size, hidden_size, bias
        gate_size = _GATES[mode] * hidden_size
        self.weight_ih = _zeros(gate_size, input_size)
        self.weight_hh = _zeros(gate_size, hidden_size)
        if bias:
            self.bias_ih = _zeros(gate_size)
            self.bias_hh = _zeros(gate_size)
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        _reset_uniform(self, self.hidden_size)

    def forward(self, input, hx=None):
        self._check_sizes(input, hx)
        unbatched = input.ndim == 1
        x = F.unsqueeze(input, 0) if unbatched else input
        zeros = Tensor(np.zeros((x.array.shape[0], self.hidden_size), x.array.dtype))
        if self.mode == "LSTM":
            h, c = hx if hx is not None else (zeros, zeros)
            if unbatched and hx is not None:
                h, c = F.unsqueeze(h, 0), F.unsqueeze(c, 0)
            h, c = _lstm_step(x, (h, c), self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
            return (F.squeeze(h, 0), F.squeeze(c, 0)) if unbatched else (h, c)
        h = zeros if hx is None else (F.unsqueeze(hx, 0) if unbatched else hx)
        h = _STEPS[self.mode](x, h, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return F.squeeze(h, 0) if unbatched else h

    def _check_sizes(self, input, hx) -> None:
        """PyTorch's checks and words (its RNNCellBase.check_forward_input / check_forward_hidden)."""
        if input.ndim not in (1, 2):
            raise ValueError(f"{type(self).__name__}: Expected input to be 1D or 2D, got {input.ndim}D instead")
        if input.array.shape[-1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.array.shape[-1]} expected "
                               f"{self.input_size}")
        states = () if hx is None else (hx if self.mode == "LSTM" else (hx,))
        for i, state in enumerate(states):
            if state.array.shape[-1] != self.hidden_size:
                raise RuntimeError(f"hidden{i} has inconsistent hidden_size: got {state.array.shape[-1]}, expected "
                                   f"{self.hidden_size}")

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.mode == "RNN_RELU":
            s += ", nonlinearity=relu"
        return s


class RNNCell(_CellBase):
    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh",
                 device=None, dtype=None):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity: {nonlinearity}")
        super().__init__("RNN_" + nonlinearity.upper(), input_size, hidden_size, bias)
        self.nonlinearity = nonlinearity


class LSTMCell(_CellBase):
    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None):
        super().__init__("LSTM", input_size, hidden_size, bias)


class GRUCell(_CellBase):
    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None):
        super().__init__("GRU", input_size, hidden_size, bias)


def _zeros(*shape) -> Parameter:
    return Parameter(np.zeros(shape, dtype=np.float32))
