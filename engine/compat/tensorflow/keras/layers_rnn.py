"""Keras' recurrent layers: SimpleRNN, LSTM, GRU (Keras 3's default reset_after=True), and the
Bidirectional wrapper — unrolled over the time steps with the TF facade's ops, so each step is in
the drawn graph and the gradient is backpropagation through time by the engine's autograd.

Keras' weights and gate orders: kernel (features, k*units), recurrent_kernel (units, k*units)
initialised orthogonal, bias zeros (LSTM: the forget gate's part ones, unit_forget_bias); LSTM
gates i, f, c, o; GRU gates z, r, h with bias (2, 3*units) (input and recurrent biases)."""
from __future__ import annotations

import numpy as np

from engine.compat.tensorflow import array_ops, ops
from engine.compat.tensorflow.keras import activations, initializers
from engine.compat.tensorflow.keras.base import Layer, name_scope
from engine.compat.tensorflow.keras.layers_core import value_of
from engine.errors import UnsupportedError


def _cols(t, i: int, units: int):
    return t[:, i * units:(i + 1) * units]


class _RNN(Layer):
    gates = 1
    seed_first = False          # SimpleRNNCell makes its seed generator before its initializers

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal", bias_initializer="zeros",
                 return_sequences=False, return_state=False, go_backwards=False, stateful=False, unroll=False,
                 dropout=0.0, recurrent_dropout=0.0, kernel_regularizer=None, **kwargs):
        # what Bidirectional makes its backward copy from (Keras: from_config, a new layer with new seeds)
        self._config = dict(units=units, activation=activation, recurrent_activation=recurrent_activation,
                            use_bias=use_bias, kernel_initializer=kernel_initializer,
                            recurrent_initializer=recurrent_initializer, bias_initializer=bias_initializer,
                            return_sequences=return_sequences, return_state=return_state,
                            go_backwards=go_backwards, kernel_regularizer=kernel_regularizer, **kwargs)
        for key in ("unit_forget_bias", "reset_after", "recurrent_regularizer", "bias_regularizer",
                    "activity_regularizer", "kernel_constraint", "recurrent_constraint", "bias_constraint",
                    "seed", "use_cudnn", "time_major", "zero_output_for_mask"):
            setattr(self, "_" + key, kwargs.pop(key, None))
        super().__init__(**kwargs)
        if stateful or dropout or recurrent_dropout:
            raise UnsupportedError(f"{type(self).__name__} with stateful, dropout or recurrent_dropout is not "
                                   "supported by Dagscope")
        self.units = int(units)
        self.activation = activations.get(activation)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.use_bias = use_bias
        self.return_sequences, self.return_state, self.go_backwards = return_sequences, return_state, go_backwards
        # resolved now, in the order Keras' cells make them and their seed generator (each unseeded
        # random one takes a seed from Python's random)
        if self.seed_first:
            self._dropout_seed = initializers.make_default_seed()
        self._inits = tuple(initializers.get(i) for i in (kernel_initializer, recurrent_initializer,
                                                            bias_initializer))
        if not self.seed_first:
            self._dropout_seed = initializers.make_default_seed()
        self.kernel_regularizer = kernel_regularizer

    def _bias_shape(self) -> tuple:
        return (self.gates * self.units,)

    def _bias_init(self):
        return self._inits[2]

    def build(self, input_shape) -> None:
        k, r, _ = self._inits
        width = self.gates * self.units
        with name_scope(self.name), name_scope(self.cell_name):      # Keras' weights belong to the cell
            self.kernel = self.add_weight(shape=(int(input_shape[-1]), width), initializer=k, name="kernel",
                                          regularizer=self.kernel_regularizer)
            self.recurrent_kernel = self.add_weight(shape=(self.units, width), initializer=r,
                                                    name="recurrent_kernel")
            self.bias = self.add_weight(shape=self._bias_shape(), initializer=self._bias_init(), name="bias") \
                if self.use_bias else None
        self.built = True

    def _initial_state(self, batch: int) -> list:
        return [array_ops.zeros([batch, self.units])]

    def call(self, inputs, initial_state=None, mask=None, training=False):
        if mask is not None:
            raise UnsupportedError("masked recurrent layers are not supported by Dagscope")
        x = ops.convert_to_tensor(inputs)
        batch, steps = x.shape.as_list()[:2]
        state = list(initial_state) if initial_state is not None else self._initial_state(batch)
        state = [ops.convert_to_tensor(s) for s in state]
        kernel, recurrent = value_of(self.kernel), value_of(self.recurrent_kernel)
        bias = value_of(self.bias) if self.bias is not None else None
        outputs = []
        order = range(steps - 1, -1, -1) if self.go_backwards else range(steps)
        for t in order:
            out, state = self._step(x[:, t, :], state, kernel, recurrent, bias)
            outputs.append(out)
        result = array_ops.stack(outputs, axis=1) if self.return_sequences else outputs[-1]
        if self.return_state:
            return [result] + state
        return result


class SimpleRNN(_RNN):
    seed_first = True
    cell_name = "simple_rnn_cell"

    def _step(self, x, state, kernel, recurrent, bias):
        z = ops.matmul(x, kernel)
        if bias is not None:
            z = z + bias
        h = self.activation(z + ops.matmul(state[0], recurrent))
        return h, [h]


class LSTM(_RNN):
    gates = 4
    cell_name = "lstm_cell"

    def _bias_init(self):
        if self._unit_forget_bias is False:
            return self._inits[2]
        units, base = self.units, initializers.get(self._inits[2])

        def init(shape, dtype=None):
            b = np.asarray(base((units,), dtype=dtype))
            return np.concatenate([b, np.ones((units,), b.dtype), np.asarray(base((units * 2,), dtype=dtype))])
        return init

    def _initial_state(self, batch: int) -> list:
        return [array_ops.zeros([batch, self.units]), array_ops.zeros([batch, self.units])]

    def _step(self, x, state, kernel, recurrent, bias):
        h, c = state
        z = ops.matmul(x, kernel) + ops.matmul(h, recurrent)
        if bias is not None:
            z = z + bias
        u = self.units
        i = self.recurrent_activation(_cols(z, 0, u))
        f = self.recurrent_activation(_cols(z, 1, u))
        c = f * c + i * self.activation(_cols(z, 2, u))
        o = self.recurrent_activation(_cols(z, 3, u))
        h = o * self.activation(c)
        return h, [h, c]


class GRU(_RNN):
    gates = 3
    cell_name = "gru_cell"

    def __init__(self, units, **kwargs):
        super().__init__(units, **kwargs)
        if self._reset_after is False:
            raise UnsupportedError("GRU(reset_after=False) is not supported by Dagscope (Keras 3's default is True)")

    def _bias_shape(self) -> tuple:
        return (2, 3 * self.units)

    def _step(self, x, state, kernel, recurrent, bias):
        h = state[0]
        xz = ops.matmul(x, kernel)
        hz = ops.matmul(h, recurrent)
        if bias is not None:
            xz = xz + bias[0]
            hz = hz + bias[1]
        u = self.units
        z = self.recurrent_activation(_cols(xz, 0, u) + _cols(hz, 0, u))
        r = self.recurrent_activation(_cols(xz, 1, u) + _cols(hz, 1, u))
        hh = self.activation(_cols(xz, 2, u) + r * _cols(hz, 2, u))
        h = z * h + (1.0 - z) * hh
        return h, [h]


class Bidirectional(Layer):
    """A forward and a backward copy of the layer; outputs concatenated (merge_mode='concat')."""

    def __init__(self, layer, merge_mode="concat", backward_layer=None, **kwargs):
        super().__init__(**kwargs)
        if merge_mode not in ("concat", "sum", "ave", "mul"):
            raise UnsupportedError(f"Bidirectional(merge_mode={merge_mode!r}) is not supported by Dagscope")
        if layer.return_state:
            raise UnsupportedError("Bidirectional with return_state=True is not supported by Dagscope")
        # Keras makes both directions anew from the layer's config (each draws its own seeds)
        self.forward_layer = type(layer)(**dict(layer._config, name=f"forward_{layer.name}"))
        if backward_layer is None:
            backward_layer = type(layer)(**dict(layer._config, go_backwards=not layer.go_backwards,
                                                name=f"backward_{layer.name}"))
        else:
            backward_layer.name = f"backward_{backward_layer.name}"
        self.backward_layer = backward_layer
        self.merge_mode = merge_mode

    def call(self, inputs, training=False):
        a = self.forward_layer(inputs)
        b = self.backward_layer(inputs)
        if self.backward_layer.return_sequences:
            b = array_ops.stack([b[:, t, :] for t in range(b.shape[1] - 1, -1, -1)], axis=1)
        if self.merge_mode == "concat":
            return array_ops.concat([a, b], axis=-1)
        if self.merge_mode == "sum":
            return a + b
        if self.merge_mode == "mul":
            return a * b
        return (a + b) / 2.0
