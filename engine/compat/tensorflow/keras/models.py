"""`keras.Model` (functional: `Model(inputs, outputs)`, or subclassed with `call`) and
`keras.Sequential`, with the Trainer's compile/fit/evaluate/predict, `summary()` as Keras prints it,
and save_weights / load_weights kept in the run's memory (nothing is written to disk)."""
from __future__ import annotations

import numpy as np

from engine.compat.scope import sentence
from engine.compat.tensorflow import context
from engine.compat.tensorflow.keras import display
from engine.compat.tensorflow.keras.base import (InputLayer, KerasTensor, Layer, _flatten, map_structure, name_scope,
                                                 snake, unique_name)
from engine.compat.tensorflow.keras.trainer import Trainer
from engine.errors import UnsupportedError


class Model(Trainer, Layer):
    """`Model(inputs, outputs)` replays the graph of layer calls between them; a subclass defines
    `call` (its layers are found through its attributes)."""

    def __init__(self, *args, **kwargs):
        inputs = kwargs.pop("inputs", args[0] if args else None)
        outputs = kwargs.pop("outputs", args[1] if len(args) > 1 else None)
        name = kwargs.pop("name", None)
        functional = inputs is not None and outputs is not None
        if name is None:
            name = unique_name("functional" if functional and type(self) is Model else snake(type(self).__name__))
        Layer.__init__(self, name=name, trainable=kwargs.pop("trainable", True), **kwargs)
        self._functional = functional
        if functional:
            self._init_graph(inputs, outputs)

    # ---- the functional graph ----
    def _init_graph(self, inputs, outputs) -> None:
        self._functional = True
        self._nested_inputs, self._nested_outputs = inputs, outputs
        self._inputs = [t for t in _flatten(inputs)]
        self._outputs = [t for t in _flatten(outputs)]
        for t in self._inputs + self._outputs:
            if not isinstance(t, KerasTensor):
                raise ValueError(f"All `inputs` and `outputs` values must be KerasTensors. Received: {t!r}")
        order, seen = [], set()

        def visit(node):
            if id(node) in seen:
                return
            seen.add(id(node))
            for t in node.input_tensors:
                visit(t.node)
            order.append(node)
        for t in self._outputs:
            visit(t.node)
        input_ids = {id(t) for t in self._inputs}
        for node in order:
            if isinstance(node.layer, InputLayer) and id(node.outputs) not in input_ids:
                raise ValueError(f"Graph disconnected: cannot find the value of the input {node.layer.name} among "
                                 "the model's inputs.")
        self._nodes = order
        self._graph_layers = _layers_by_depth(self._outputs)
        self.built = True

    @property
    def inputs(self) -> list:
        return list(self._inputs) if self._functional else None

    @property
    def outputs(self) -> list:
        return list(self._outputs) if self._functional else None

    @property
    def input(self):
        return self._nested_inputs if self._functional else Layer.input.fget(self)

    @property
    def output(self):
        return self._nested_outputs if self._functional else Layer.output.fget(self)

    @property
    def input_shape(self):
        return self._inputs[0].shape if self._functional else None

    @property
    def output_shape(self):
        return self._outputs[0].shape if self._functional else None

    def _sublayers(self) -> list:
        if getattr(self, "_functional", False):
            return [layer for layer in self._graph_layers if layer is not self]
        return Layer._sublayers(self)

    @property
    def layers(self) -> list:
        return self._sublayers()

    def get_layer(self, name=None, index=None):
        if index is not None:
            return self.layers[index]
        for layer in self.layers:
            if layer.name == name:
                return layer
        raise ValueError(f"No such layer: {name}. Existing layers are: {[layer.name for layer in self.layers]}.")

    def call(self, inputs, training=None, mask=None):
        if not self._functional:
            raise NotImplementedError(f"Model {type(self).__name__} does not have a `call()` method implemented.")
        values = {}
        flat = _flatten(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
        if len(flat) != len(self._inputs):
            raise ValueError(f"Model {self.name} expects {len(self._inputs)} input(s), but it received {len(flat)} "
                             "input tensors.")
        for kt, v in zip(self._inputs, flat):
            values[id(kt)] = v
        for node in self._nodes:
            if isinstance(node.layer, InputLayer):
                continue

            def real(t):
                return values[id(t)] if isinstance(t, KerasTensor) else t
            out = node.layer(*map_structure(real, node.args), **map_structure(real, node.kwargs))
            for kt, o in zip(_flatten(node.outputs), _flatten(out)):
                values[id(kt)] = o
        return map_structure(lambda t: values[id(t)], self._nested_outputs)

    def build(self, input_shape) -> None:
        self.built = True

    # ---- summary ----
    def summary(self, line_length=None, positions=None, print_fn=None, expand_nested=False, show_trainable=False,
                layer_range=None):
        text = display.summary_text(self.name, self._summary_rows(), self._connected(), self._counts(),
                                    line_length, positions)
        (print_fn or print)(text)

    def _summary_layers(self) -> list:
        return self.layers if not self._functional else list(self._graph_layers)

    def _connected(self) -> bool:
        """Keras prints a 'Connected to' column unless the model is a chain of single-input layers."""
        if not self._functional:
            return False
        if len(self._inputs) > 1 or len(self._outputs) > 1:
            return True
        consumers: dict = {}
        for node in self._nodes:
            tensors = node.input_tensors
            if len(tensors) > 1:
                return True
            for t in tensors:
                consumers[id(t)] = consumers.get(id(t), 0) + 1
        uses = {}
        for node in self._nodes:
            uses[id(node.layer)] = uses.get(id(node.layer), 0) + 1
        return any(c > 1 for c in consumers.values()) or any(u > 1 for u in uses.values())

    def _summary_rows(self) -> list:
        rows = []
        for layer in self._summary_layers():
            params = "0" if not layer.built and isinstance(layer, InputLayer) else \
                (f"{layer.count_params():,}" if layer.built else "0 (unbuilt)")
            row = [f"{layer.name} ({type(layer).__name__})", _shape_text(layer, self), params]
            if self._connected():
                row.append(_connections(layer, self))
            rows.append(row)
        return rows

    def _counts(self) -> dict:
        def size(ws):
            return sum(int(np.prod(w.shape.as_list())) for w in ws)

        def nbytes(ws):
            return float(sum(int(np.prod(w.shape.as_list())) * w.dtype.np.itemsize for w in ws))
        trainable, non_trainable = self.trainable_weights, self.non_trainable_weights
        counts = {"trainable": size(trainable), "trainable_bytes": nbytes(trainable),
                  "non_trainable": size(non_trainable), "non_trainable_bytes": nbytes(non_trainable),
                  "optimizer": None}
        counts["total"], counts["total_bytes"] = counts["trainable"] + counts["non_trainable"], \
            counts["trainable_bytes"] + counts["non_trainable_bytes"]
        if self.compiled and self.optimizer is not None and self.optimizer.built:
            opt = self.optimizer.variables
            counts["optimizer"], counts["optimizer_bytes"] = size(opt), nbytes(opt)
            counts["total"] += counts["optimizer"]
            counts["total_bytes"] += counts["optimizer_bytes"]
        return counts

    # ---- weights in the run's memory ----
    def save_weights(self, filepath, overwrite=True, **kwargs):
        """Kept in this run's memory under `filepath` (Keras 3 asks for a name ending in .weights.h5)."""
        filepath = str(filepath)
        if not filepath.endswith(".weights.h5"):
            raise ValueError("The filename must end in `.weights.h5`. Received: filepath=" + filepath)
        self._keep_weights(filepath)

    def _keep_weights(self, filepath: str) -> None:
        _saved()[filepath] = [w.numpy().copy() for w in self.weights]

    def load_weights(self, filepath, skip_mismatch=False, **kwargs):
        filepath = str(filepath)
        if filepath not in _saved():
            raise FileNotFoundError(f"[Errno 2] Unable to synchronously open file (unable to open file: name = "
                                    f"'{filepath}', errno = 2, error message = 'No such file or directory') "
                                    "(Dagscope keeps weights saved by save_weights in this run's memory)")
        self.set_weights(_saved()[filepath])

    def save(self, filepath, overwrite=True, **kwargs):
        raise UnsupportedError("model.save is not supported by Dagscope: it writes no .keras archive or SavedModel. "
                               "Use model.save_weights('name.weights.h5') and load_weights in the same run; a model "
                               "file other tools open is ONNX, which torch.onnx.export writes from a PyTorch model")

    def to_json(self, **kwargs):
        raise UnsupportedError("model.to_json is not supported by Dagscope")


def _layers_by_depth(outputs) -> list:
    """Keras' order of a functional model's layers: by decreasing depth (distance from the outputs),
    ties in the order a depth-first walk from the outputs first meets them."""
    first_seen: dict = {}
    finished: list = []
    done: set = set()

    def walk(tensor):
        node = tensor.node
        if id(node) in done:
            return
        first_seen.setdefault(id(node.layer), (len(first_seen), node.layer))
        for t in node.input_tensors:
            walk(t)
        done.add(id(node))
        finished.append(node)
    for t in outputs:
        walk(t)
    node_depth: dict = {}
    layer_depth: dict = {}
    for node in reversed(finished):
        depth = max(node_depth.setdefault(id(node), 0), layer_depth.get(id(node.layer), 0))
        layer_depth[id(node.layer)] = node_depth[id(node)] = depth
        for t in node.input_tensors:
            node_depth[id(t.node)] = max(depth + 1, node_depth.get(id(t.node), 0))
    ordered = sorted(first_seen.values(), key=lambda item: (-layer_depth[id(item[1])], item[0]))
    return [layer for _, layer in ordered]


def _saved() -> dict:
    st = context.state()
    if not hasattr(st, "keras_saved_weights"):
        st.keras_saved_weights = {}
    return st.keras_saved_weights


def _format_shape(shape) -> str:
    return "(" + ", ".join(str(s) for s in shape) + ")"


def _shape_text(layer, model) -> str:
    if isinstance(layer, InputLayer):
        return _format_shape(layer.batch_shape)
    nodes = [n for n in layer._inbound_nodes if not model._functional or n in model._nodes]
    if nodes:
        outs = nodes[-1].outputs
        flat = [t for t in _flatten(outs) if isinstance(t, KerasTensor)]
        if len(flat) == 1:
            return _format_shape(flat[0].shape)
        return str(map_structure(lambda t: _format_shape(t.shape), outs)).replace("'", "")
    shape = getattr(layer, "_last_output_shape", None)
    if shape is not None:
        return shape if isinstance(shape, str) else _format_shape(shape)
    return "?"


def _connections(layer, model) -> str:
    parts = []
    for node in layer._inbound_nodes:
        if node not in model._nodes:
            continue
        for t in node.input_tensors:
            producer = t.node
            index = producer.layer._inbound_nodes.index(producer) if producer in producer.layer._inbound_nodes else 0
            parts.append(f"{producer.layer.name}[{index}][{t.index}]")
    return ", ".join(parts) if parts else "-"


class Sequential(Model):
    """Layers called in order. Given an input shape (`keras.Input` first, or `input_shape=` on the
    first layer) it is built at once, as a functional graph; otherwise on its first call."""

    def __init__(self, layers=None, name=None, trainable=True, **kwargs):
        Model.__init__(self, name=name or unique_name("sequential"), trainable=trainable)
        self._layers: list = []
        self._input_layer = None
        for layer in layers or []:
            self.add(layer, rebuild=False)
        self._maybe_build()

    def add(self, layer, rebuild=True) -> None:
        if isinstance(layer, KerasTensor):
            layer = layer.node.layer
        if isinstance(layer, InputLayer):
            if self._layers or self._input_layer is not None:
                raise ValueError("An InputLayer can only be the first layer of a Sequential model.")
            self._input_layer = layer
        elif not isinstance(layer, Layer):
            raise ValueError(f"Only instances of `keras.Layer` can be added to a Sequential model. Received: "
                             f"{layer} (of type {type(layer)})")
        else:
            if any(layer.name == other.name and other is not layer for other in self._layers):
                raise ValueError(f"All layers added to a Sequential model should have unique names. Name "
                                 f"'{layer.name}' is already the name of a layer in this model.")
            self._layers.append(layer)
        self._functional = False
        self.built = False
        if rebuild:
            self._maybe_build()

    def pop(self):
        layer = self._layers.pop()
        self._functional, self.built = False, False
        self._maybe_build()
        return layer

    def _maybe_build(self) -> None:
        if self._input_layer is None and self._layers and self._layers[0]._input_shape_arg is not None:
            self._input_layer = InputLayer(shape=self._layers[0]._input_shape_arg)
        if self._input_layer is not None and self._layers:
            self._build_from(self._input_layer.output_tensor)

    def _build_from(self, x) -> None:
        unique_name("functional")       # Keras builds a Sequential as a Functional, which takes a name
        inputs = x
        with name_scope(self.name):     # (Keras' build runs in the model's name scope)
            for layer in self._layers:
                x = layer(x)
        self._init_graph(inputs, x)
        self._graph_layers = [self._input_layer] + list(self._layers)

    def build(self, input_shape=None) -> None:
        if self._functional:
            return
        if input_shape is None:
            raise ValueError("You must provide an `input_shape` argument.")
        shape = tuple(input_shape)
        self._input_layer = InputLayer(shape=shape[1:])
        self._build_from(self._input_layer.output_tensor)

    def __call__(self, *args, **kwargs):
        if not self._functional and args and not isinstance(args[0], KerasTensor) and self._layers:
            first = args[0]
            shape = getattr(first, "shape", None)
            if shape is None:
                shape = np.shape(first)
            self.build((None,) + tuple(shape)[1:])
        return Model.__call__(self, *args, **kwargs)

    def call(self, inputs, training=None, mask=None):
        if self._functional:
            return Model.call(self, inputs, training=training)
        x = inputs
        for layer in self._layers:
            x = layer(x)
        return x

    @property
    def layers(self) -> list:
        return list(self._layers)

    def _sublayers(self) -> list:
        return list(self._layers)

    def _summary_layers(self) -> list:
        return list(self._layers)

    def _connected(self) -> bool:
        return False


def save_model(model, filepath, overwrite=True, **kwargs):
    """keras.models.save_model: as model.save (Keras 3 has both)."""
    raise UnsupportedError(f"keras.models.save_model is not supported by Dagscope. {sentence('keras.saving')}")


def load_model(filepath, custom_objects=None, compile=True, safe_mode=True):  # noqa: A002
    raise UnsupportedError("keras.models.load_model is not supported by Dagscope (it writes no .keras archive to "
                           "load); use save_weights / load_weights in the same run")
