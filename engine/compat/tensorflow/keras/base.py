"""Keras' Layer, its variables, and the symbolic tensors of the functional API (`keras.Input`).

A layer called on real tensors runs its `call` through the TF facade's ops, so the engine's
autograd (a GradientTape, `fit`) differentiates it and the recorder draws it. A layer called on
a `KerasTensor` (what `keras.Input` returns) records a `Node` instead: which layer, on which
symbolic inputs, giving which symbolic outputs — the graph a functional `Model` replays. The
output's shape is found by running the layer once on zeros of the input's shape (batch 1, and a
second size for any other unknown dimension: a dimension that follows it stays None), as Keras'
`compute_output_spec` runs the layer on symbolic values.
"""
from __future__ import annotations

import inspect

import numpy as np

from engine import hooks
from engine.compat.tensorflow import context, dtypes, ops
from engine.compat.tensorflow import tape as tf_tape
from engine.compat.tensorflow.eager import EagerTensor
from engine.compat.tensorflow.keras import initializers, regularizers
from engine.compat.tensorflow.variables import Variable
from engine.record import active as record_active


def unique_name(base: str) -> str:
    """Keras' per-session names: dense, dense_1, dense_2 ..."""
    counts = context.state().keras_names
    n = counts.get(base, 0)
    counts[base] = n + 1
    return base if n == 0 else f"{base}_{n}"


def snake(name: str) -> str:
    """Keras' `to_snake_case`: Conv2D -> conv2d, MaxPooling2D -> max_pooling2d, GRU -> gru."""
    out = ""
    for i, c in enumerate(name):
        if c.isupper() and i and not name[i - 1].isupper() and not name[i - 1].isdigit():
            out += "_"
        elif c.isupper() and i and i + 1 < len(name) and name[i + 1].islower() and name[i - 1].isupper():
            out += "_"
        out += c.lower()
    return out


# ---- variables ------------------------------------------------------------------------------------

class KerasVariable(Variable):
    """A layer's weight: a tf.Variable whose `name` is Keras 3's short name ('kernel') and whose
    `path` says whose it is ('dense/kernel', also its label in the drawn graph)."""

    def __init__(self, value, name: str, path: str, trainable: bool = True):
        super().__init__(value, trainable=trainable, name=path)
        self._short_name, self.path = name, path

    @property
    def name(self) -> str:
        return self._short_name

    def __repr__(self) -> str:
        """Keras 3's: the path, shape, dtype and the value as numpy prints it."""
        return (f"<Variable path={self.path}, shape={tuple(self.shape.as_list())}, dtype={self.dtype.name}, "
                f"value={np.asarray(self._leaf.array)}>")

    __str__ = __repr__


# ---- symbolic tensors -----------------------------------------------------------------------------

class KerasTensor:
    """A symbolic tensor of the functional API: a shape with None for the batch, a dtype, and the
    node (layer call) that produced it."""

    def __init__(self, shape, dtype="float32", name=None, node=None, index=0):
        self.shape = tuple(None if s is None else int(s) for s in shape)
        self.dtype = dtypes.as_dtype(dtype)
        self.name = name or unique_name("keras_tensor")
        self.node, self.index = node, index

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __repr__(self) -> str:
        return (f"<KerasTensor shape={self.shape}, dtype={self.dtype.name}, sparse=False, ragged=False, "
                f"name={self.name}>")

    def _sample(self, free: int) -> EagerTensor:
        shape = [1 if i == 0 and s is None else (free if s is None else s) for i, s in enumerate(self.shape)]
        return EagerTensor(np.zeros(shape, self.dtype.np))

    # the operators of the functional API (`x + y`, `x * 2`) are layers, as in Keras
    def __add__(self, other):
        return _op_layer("add", lambda a, b: ops.add(a, b), self, other)

    def __radd__(self, other):
        return _op_layer("add", lambda a, b: ops.add(b, a), self, other)

    def __sub__(self, other):
        return _op_layer("subtract", lambda a, b: ops.subtract(a, b), self, other)

    def __rsub__(self, other):
        return _op_layer("subtract", lambda a, b: ops.subtract(b, a), self, other)

    def __mul__(self, other):
        return _op_layer("multiply", lambda a, b: ops.multiply(a, b), self, other)

    def __rmul__(self, other):
        return _op_layer("multiply", lambda a, b: ops.multiply(b, a), self, other)

    def __truediv__(self, other):
        return _op_layer("divide", lambda a, b: ops.truediv(a, b), self, other)

    def __neg__(self):
        return _op_layer("negative", lambda a, b: ops.negative(a), self, None)

    def __getitem__(self, key):
        return _op_layer("get_item", lambda a, b: a[key], self, None)


class Node:
    """One call of a layer on symbolic inputs (Keras' Node): the functional graph's unit."""

    def __init__(self, layer, args, kwargs, outputs):
        self.layer, self.args, self.kwargs, self.outputs = layer, args, kwargs, outputs

    @property
    def input_tensors(self) -> list:
        return [t for t in _flatten((self.args, self.kwargs)) if isinstance(t, KerasTensor)]

    @property
    def output_tensors(self) -> list:
        return [t for t in _flatten(self.outputs) if isinstance(t, KerasTensor)]


def _flatten(structure) -> list:
    if isinstance(structure, (list, tuple)):
        return [x for item in structure for x in _flatten(item)]
    if isinstance(structure, dict):
        return [x for key in structure for x in _flatten(structure[key])]
    return [structure]


def map_structure(fn, structure):
    if isinstance(structure, list):
        return [map_structure(fn, x) for x in structure]
    if isinstance(structure, tuple):
        return tuple(map_structure(fn, x) for x in structure)
    if isinstance(structure, dict):
        return {k: map_structure(fn, v) for k, v in structure.items()}
    return fn(structure)


# ---- the training flag that a model's call passes down to its layers ----------------------------

_TRAINING: list = []        # innermost last; None entries = "not said"
_SCOPES: list = []          # the names of the layers being built or called, outermost first
BATCH_UNKNOWN: list = []    # non-empty while fit / evaluate / predict run (Keras builds with batch None)


class name_scope:  # noqa: N801 - used like Keras' backend.name_scope
    """Keras 3 opens a layer's name scope around its build and call, so a weight's path says which
    layers (and models) it was made inside: 'sequential/dense/kernel', or 'dense/kernel' when the
    layer was built on its own (a functional model's layers are built before the model exists)."""

    def __init__(self, name: str):
        self.name, self.pushed = name, False

    def __enter__(self):
        if not _SCOPES or _SCOPES[-1] != self.name:
            _SCOPES.append(self.name)
            self.pushed = True
        return self

    def __exit__(self, *exc) -> None:
        if self.pushed:
            _SCOPES.pop()


def _draws(layer) -> bool:
    """Whether this eager call is one the recorder should see: the outermost layer call, in eager code
    with no tape recording, while a run is recorded and has drawn no gradient yet."""
    if _TRAINING or not hooks.MODULE_CALLED:
        return False
    rec = record_active.current()
    st = context.state()
    return (rec is not None and rec.backward_calls == 0 and not st.tapes and st.tracing is None
            and not context.building_graph())


def current_training():
    for value in reversed(_TRAINING):
        if value is not None:
            return value
    return None


# ---- Layer ------------------------------------------------------------------------------------------

class Layer:
    """Keras' Layer: weights made by `build` on the first call (from the input's shape), `call`
    for the computation, `add_weight`, sub-layers found through attributes, `training`."""

    def __init__(self, name=None, trainable=True, dtype=None, input_shape=None, input_dim=None, **kwargs):
        self.name = name or unique_name(snake(type(self).__name__))
        self._trainable = bool(trainable)
        self.built = False
        self._own_weights: list = []
        self._inbound_nodes: list = []
        self._losses: list = []
        self._build_shape = None
        self.supports_masking = False
        if input_dim is not None and input_shape is None:
            input_shape = (input_dim,)
        self._input_shape_arg = tuple(input_shape) if input_shape is not None else None
        if "batch_input_shape" in kwargs:
            self._input_shape_arg = tuple(kwargs.pop("batch_input_shape"))[1:]

    # ---- weights ----
    def add_weight(self, name=None, shape=(), initializer="glorot_uniform", dtype=None, trainable=True,
                   regularizer=None, constraint=None, **kwargs):
        """Keras 3's order is (shape, initializer, dtype, trainable, ..., name); name first was Keras 2's."""
        if isinstance(name, (tuple, list)) and not isinstance(shape, (tuple, list)):
            name, shape = None, name
        dtype = dtypes.as_dtype(dtype or "float32")
        value = initializers.get(initializer)(tuple(int(s) for s in shape), dtype=dtype)
        short = name or "variable"
        scopes = list(_SCOPES) if self.name in _SCOPES else list(_SCOPES) + [self.name]
        v = KerasVariable(np.asarray(value, dtype.np), short, "/".join(scopes + [short]), trainable=trainable)
        self._own_weights.append(v)
        regularizer = regularizers.get(regularizer)
        if regularizer is not None:
            self._regularizers = getattr(self, "_regularizers", []) + [(regularizer, v)]
        return v

    def _sublayers(self) -> list:
        found = []
        for key, value in vars(self).items():
            if key.startswith("_inbound") or key in ("_model_owner",):
                continue
            items = value if isinstance(value, (list, tuple)) else list(value.values()) if isinstance(value, dict) \
                else [value]
            found.extend(item for item in items if isinstance(item, Layer) and item is not self)
        return found

    @property
    def weights(self) -> list:
        out = list(self._own_weights)
        for layer in self._sublayers():
            out.extend(w for w in layer.weights if all(w is not o for o in out))
        return out

    variables = weights

    @property
    def trainable(self) -> bool:
        return self._trainable

    @trainable.setter
    def trainable(self, value) -> None:
        self._trainable = bool(value)
        for layer in self._sublayers():
            layer.trainable = value

    @property
    def trainable_weights(self) -> list:
        if not self._trainable:
            return []
        out = [w for w in self._own_weights if w.trainable]
        for layer in self._sublayers():
            out.extend(w for w in layer.trainable_weights if all(w is not o for o in out))
        return out

    trainable_variables = trainable_weights

    @property
    def non_trainable_weights(self) -> list:
        trainable = self.trainable_weights
        return [w for w in self.weights if all(w is not t for t in trainable)]

    non_trainable_variables = non_trainable_weights

    def get_weights(self) -> list:
        return [w.numpy() for w in self.weights]

    def set_weights(self, weights) -> None:
        mine = self.weights
        if len(weights) != len(mine):
            raise ValueError(f"You called `set_weights(weights)` on layer '{self.name}' with a weight list of length "
                             f"{len(weights)}, but the layer was expecting {len(mine)} weights.")
        for var, value in zip(mine, weights):
            value = np.asarray(value)
            if tuple(var.shape.as_list()) != value.shape:
                raise ValueError(f"Layer {self.name} weight shape {tuple(var.shape.as_list())} is not compatible "
                                 f"with provided weight shape {value.shape}.")
            var.assign(value)

    def count_params(self) -> int:
        return int(sum(int(np.prod(w.shape.as_list())) for w in self.weights))

    @property
    def losses(self) -> list:
        """Regularization penalties of this layer and its sub-layers, as tensors (computed now)."""
        out = list(self._losses)
        for regularizer, var in getattr(self, "_regularizers", []):
            out.append(regularizer(var))
        for layer in self._sublayers():
            out.extend(layer.losses)
        return out

    def add_loss(self, loss) -> None:
        self._losses.append(loss)

    # ---- calling ----
    def build(self, input_shape) -> None:
        self.built = True

    def call(self, inputs, *args, **kwargs):
        return inputs

    def _call_accepts(self, name: str) -> bool:
        try:
            params = inspect.signature(self.call).parameters
        except (TypeError, ValueError):
            return False
        return name in params or any(p.kind == p.VAR_KEYWORD for p in params.values())

    def __call__(self, *args, **kwargs):
        if any(isinstance(t, KerasTensor) for t in _flatten((args, kwargs))):
            return self._symbolic_call(args, kwargs)
        if _draws(self):
            return self._drawn_call(args, kwargs)
        with name_scope(self.name):
            return self._eager_call(args, kwargs)

    def _drawn_call(self, args, kwargs):
        """A model called eagerly from the program itself, outside any tape (`print(net(X))`): TF records
        no gradient there, so no graph would exist to draw. A tape of Dagscope's own records this call
        (ops record only under a tape), and hooks.MODULE_CALLED hands the output to the recorder, as an
        nn.Module's; a tape the program opens later does not see these ops (tape.py cuts what it did
        not record), so nothing the program computes changes."""
        with tf_tape.GradientTape(persistent=True, watch_accessed_variables=False), name_scope(self.name):
            out = self._eager_call(args, kwargs)
        for observer in list(hooks.MODULE_CALLED):
            observer(self, out)
        return out

    def _eager_call(self, args, kwargs):
        inputs = map_structure(_as_input, args[0]) if args else None
        args = (inputs,) + args[1:] if args else args
        if not self.built:
            self._build_shape = map_structure(lambda t: tuple(t.shape) if hasattr(t, "shape") else None, inputs)
            self.build(self._build_shape)
            self.built = True
        training = kwargs.pop("training", None)
        _TRAINING.append(training)
        try:
            if self._call_accepts("training"):
                kwargs["training"] = bool(current_training())
            out = self.call(*args, **kwargs)
        finally:
            _TRAINING.pop()
        shape = getattr(out, "shape", None)
        if shape is not None and getattr(self, "_last_output_shape", None) is None:
            # what summary() shows for a layer a subclassed model called: the shape of its first call
            # (the build), whose batch is None when fit / evaluate / predict built it, as Keras does
            shape = tuple(shape)
            self._last_output_shape = (None,) + shape[1:] if BATCH_UNKNOWN and shape else shape
        return out

    def _symbolic_call(self, args, kwargs):
        """Record a node; find the output's shape by running the layer on zeros (twice when a non-batch
        dimension is unknown, so that what follows it stays None)."""
        tensors = [t for t in _flatten((args, kwargs)) if isinstance(t, KerasTensor)]
        free = any(s is None for t in tensors for s in t.shape[1:])
        results = []
        for size in ((3, 4) if free else (3,)):
            def concrete(x, size=size):
                return x._sample(size) if isinstance(x, KerasTensor) else x
            out = self.__call__(*map_structure(concrete, args), **dict(map_structure(concrete, kwargs),
                                                                       training=False))
            results.append(out)
        outputs = map_structure(lambda t: t, results[0])
        counter = iter(range(1_000_000))

        def symbolic(t, other=None):
            shape = (None,) + tuple(t.shape[1:])
            if other is not None:
                shape = tuple(a if a == b else None for a, b in zip(shape, (None,) + tuple(other.shape[1:])))
            return KerasTensor(shape, t.dtype, index=next(counter))
        if len(results) == 2:
            flat_b = iter(_flatten(results[1]))
            outputs = map_structure(lambda t: symbolic(t, next(flat_b)), outputs)
        else:
            outputs = map_structure(symbolic, outputs)
        node = Node(self, args, kwargs, outputs)
        for t in _flatten(outputs):
            t.node = node
        self._inbound_nodes.append(node)
        return outputs

    # ---- Keras' introspection ----
    @property
    def input(self):
        return self._inbound_nodes[0].input_tensors[0] if self._inbound_nodes else None

    @property
    def output(self):
        if not self._inbound_nodes:
            raise AttributeError(f"Layer {self.name} has no inbound nodes.")
        outs = self._inbound_nodes[0].output_tensors
        return outs[0] if len(outs) == 1 else outs

    def get_config(self) -> dict:
        return {"name": self.name, "trainable": self.trainable, "dtype": "float32"}

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name}, built={self.built}>"


def _op_layer(name, fn, a, b):
    layer = _OpLayer(fn, name=unique_name(name))
    return layer(a, b)


class _OpLayer(Layer):
    """An operator applied to symbolic tensors (Keras wraps it in an operation the model replays)."""

    def __init__(self, fn, name):
        super().__init__(name=name)
        self._fn = fn

    def call(self, a, b=None):
        return self._fn(a, b)


def _as_input(value):
    """Keras casts a float input to the layer's float32 (numpy float64 included); ints stay ints."""
    if value is None or isinstance(value, (str, bool)) or callable(value) and not hasattr(value, "shape"):
        return value
    if hasattr(value, "_dagscope_value"):
        value = value._dagscope_value()
    t = ops.convert_to_tensor(value) if not isinstance(value, EagerTensor) else value
    if getattr(t, "dtype", None) is not None and t.dtype.is_floating and t.dtype != dtypes.float32:
        t = ops.cast(t, dtypes.float32)
    return t


class InputLayer(Layer):
    def __init__(self, shape=None, batch_size=None, dtype=None, name=None, input_shape=None, **kwargs):
        super().__init__(name=name or unique_name("input_layer"))
        shape = shape if shape is not None else input_shape
        if shape is None:
            raise ValueError("You must pass a `shape` argument.")
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        self.output_tensor = KerasTensor((batch_size,) + shape, dtype or "float32")
        self.output_tensor.node = Node(self, (), {}, self.output_tensor)
        self._inbound_nodes.append(self.output_tensor.node)
        self.built = True

    @property
    def batch_shape(self) -> tuple:
        return self.output_tensor.shape


def Input(shape=None, batch_size=None, dtype=None, name=None, batch_shape=None, **kwargs):  # noqa: N802
    """`keras.Input(shape=(3,))`: a symbolic (None, 3) tensor to build a functional Model on."""
    if batch_shape is not None:
        batch_size, shape = batch_shape[0], tuple(batch_shape[1:])
    return InputLayer(shape=shape, batch_size=batch_size, dtype=dtype, name=name).output_tensor
