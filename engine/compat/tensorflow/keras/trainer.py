"""Keras 3's Trainer: compile, fit, evaluate, predict, and the steps they run (train_step under a
tf.GradientTape, so each step's forward and backward are the engine's autograd and the recorder
draws them; override train_step / test_step as the Keras guides do).

The loop follows Keras 3: batches of 32 by default, the last partial; shuffled each epoch as Keras 3
on TensorFlow shuffles (its array adapter's tf.random.shuffle of the indices, inside a tf.data map):
with a global seed (keras.utils.set_random_seed, tf.random.set_seed) that is TF's RandomShuffle with
op seeds (seed, 0), bit for bit, and the same order every epoch and every fit, as there; without
one, an order from the run's numpy stream (TF's is unseeded too); validation_split takes the last
fraction before any shuffling; the loss shown is the mean of the batch losses weighted by batch size, the metrics are
running over the epoch; logs are sorted by name (TensorFlow's tf.function sorts them) with the
val_ ones after; callbacks run in order, then History, then the progress bar."""
from __future__ import annotations

import math

import numpy as np

from engine.compat.tensorflow import context, ops
from engine.compat.tensorflow import tape as tf_tape
from engine.compat.tensorflow.keras import callbacks as callbacks_module
from engine.compat.tensorflow.keras import display, losses as losses_module, metrics as metrics_module
from engine.compat.tensorflow.keras import optimizers as optimizers_module, philox
from engine.compat.tensorflow.keras.base import BATCH_UNKNOWN, _flatten, map_structure
from engine.errors import UnsupportedError


# ---- data -------------------------------------------------------------------------------------------

def unpack_x_y_sample_weight(data):
    if isinstance(data, (list, tuple)):
        if len(data) == 1:
            return data[0], None, None
        if len(data) == 2:
            return data[0], data[1], None
        if len(data) == 3:
            return data[0], data[1], data[2]
    return data, None, None


def _is_array(x) -> bool:
    return isinstance(x, (np.ndarray, np.generic, list)) or hasattr(x, "shape") and hasattr(x, "dtype")


def _is_stream(x) -> bool:
    """A tf.data.Dataset or a Python generator of batches."""
    return x is not None and not _is_array(x) and not isinstance(x, (tuple, dict)) and hasattr(x, "__iter__")


def _array(x):
    if x is None:
        return None
    if hasattr(x, "_dagscope_value"):
        x = x._dagscope_value()
    arr = np.asarray(getattr(x, "array", x))
    if arr.dtype.kind == "f" and arr.dtype != np.float32:
        arr = arr.astype(np.float32)        # Keras converts float data to floatx (float32)
    return arr


def _length(structure) -> int:
    lengths = {len(a) for a in _flatten(structure) if a is not None}
    if len(lengths) > 1:
        raise ValueError(f"Data cardinality is ambiguous: the arrays have {sorted(lengths)} samples. Make sure all "
                         "arrays contain the same number of samples.")
    return lengths.pop() if lengths else 0


def _take(structure, index):
    return map_structure(lambda a: None if a is None else a[index], structure)


class ArrayData:
    """In-memory arrays in batches (Keras' array adapter)."""

    def __init__(self, x, y=None, sample_weight=None, batch_size=32, shuffle=False):
        self.x = map_structure(_array, x)
        self.y = map_structure(_array, y) if y is not None else None
        self.sw = _array(sample_weight)
        self.n = _length((self.x, self.y))
        self.batch_size = int(batch_size or 32)
        self.shuffle = shuffle

    @property
    def steps(self) -> int:
        return math.ceil(self.n / self.batch_size)

    def __iter__(self):
        order = np.arange(self.n)
        if self.shuffle:
            order = _shuffled(self.n)
        for start in range(0, self.n, self.batch_size):
            idx = order[start:start + self.batch_size]
            x = map_structure(_tensor, _take(self.x, idx))
            if self.y is None:
                yield (x,)
                continue
            y = map_structure(_tensor, _take(self.y, idx))
            yield (x, y) if self.sw is None else (x, y, _tensor(self.sw[idx]))


def _shuffled(n: int) -> np.ndarray:
    seed = context.state().seed
    if seed is None:
        return context.state().rng.permutation(n)
    seeds = (seed % _MAXINT32, 0)                          # TF's random_seed.get_seed, op seed 0
    return philox.shuffle_order(n, *(seeds if seeds != (0, 0) else (0, _MAXINT32)))


_MAXINT32 = 2 ** 31 - 1


class StreamData:
    """A tf.data.Dataset (already batched) or a generator: each element is a batch."""

    def __init__(self, stream, steps=None):
        self.stream, self.steps = stream, steps

    def __iter__(self):
        for i, element in enumerate(self.stream):
            if self.steps is not None and i >= self.steps:
                return
            yield element if isinstance(element, tuple) else (element,)


def _tensor(a):
    return ops.convert_to_tensor(a) if a is not None else None


def _split(x, y, sw, fraction: float):
    """Keras' validation_split: the last `fraction` of the samples, before shuffling."""
    n = _length((map_structure(_array, x), map_structure(_array, y) if y is not None else None))
    at = int(math.floor(n * (1.0 - fraction)))

    def part(s, lo, hi):
        return None if s is None else map_structure(lambda a: _array(a)[lo:hi], s)
    return (part(x, 0, at), part(y, 0, at), part(sw, 0, at)), (part(x, at, n), part(y, at, n), part(sw, at, n))


def make_data(x, y=None, sample_weight=None, batch_size=None, shuffle=False, steps=None):
    if _is_stream(x):
        if y is not None:
            raise ValueError("`y` argument is not supported when using dataset as input.")
        return StreamData(x, steps)
    if isinstance(x, dict):
        raise UnsupportedError("dict inputs to fit/evaluate/predict are not supported by Dagscope; pass a list in "
                               "the order of the model's inputs")
    return ArrayData(x, y, sample_weight, batch_size or 32, shuffle)


# ---- metrics of compile --------------------------------------------------------------------------

class CompileMetrics(metrics_module.Metric):
    """The metrics given to compile, made once the first batch shows y's shapes (Keras' choice of
    accuracy); its result is a dict, which the logs flatten."""

    def __init__(self, identifiers):
        self.identifiers = list(identifiers or [])
        self.metrics: list = []
        super().__init__(name="compile_metrics")

    def reset_state(self) -> None:
        for m in getattr(self, "metrics", []):
            m.reset_state()

    def update_state(self, y_true, y_pred, sample_weight=None):
        if not self.metrics and self.identifiers:
            y_true0, y_pred0 = _flatten(y_true)[0], _flatten(y_pred)[0]
            self.metrics = [metrics_module.for_compile(i, y_true0, y_pred0) for i in self.identifiers]
        for m in self.metrics:
            m.update_state(_flatten(y_true)[0], _flatten(y_pred)[0], sample_weight)

    def result(self):
        return {m.name: m.result() for m in self.metrics}


def _python(value):
    if isinstance(value, dict):
        return value
    if hasattr(value, "_dagscope_value"):
        value = value._dagscope_value()
    arr = np.asarray(getattr(value, "array", value))
    return float(arr) if arr.size == 1 else arr


def pythonify(logs) -> dict:
    """Flatten nested result dicts, make the numbers Python floats, and sort by name (as the dict a
    tf.function returns is sorted)."""
    flat = {}
    for k, v in (logs or {}).items():
        if isinstance(v, dict):
            flat.update(pythonify(v))
        else:
            flat[k] = _python(v)
    return dict(sorted(flat.items()))


class ProgbarLogger(callbacks_module.Callback):
    """Prints 'Epoch i/n' and each epoch's finished progress line (see display.py)."""

    def __init__(self, verbose: int, epochs: int):
        super().__init__()
        self.verbose, self.epochs = verbose, epochs

    def on_epoch_begin(self, epoch, logs=None):
        if self.verbose:
            print(f"Epoch {epoch + 1}/{self.epochs}")

    def on_epoch_end(self, epoch, logs=None):
        if self.verbose:
            steps = self.params.get("steps") or self.seen
            print(display.progress_line(steps, steps, list((logs or {}).items()), self.verbose))

    def on_train_batch_end(self, batch, logs=None):
        self.seen = batch + 1


# ---- the trainer ----------------------------------------------------------------------------------------

class Trainer:
    compiled = False
    optimizer = None
    loss = None
    stop_training = False

    def compile(self, optimizer="rmsprop", loss=None, loss_weights=None, metrics=None, weighted_metrics=None,
                run_eagerly=False, steps_per_execution=1, jit_compile="auto", auto_scale_loss=True):
        self.optimizer = optimizers_module.get(optimizer)
        self.loss = loss
        names = self.output_names
        if isinstance(loss, dict):            # per output, by the output layers' names
            loss = [loss.get(n) for n in names]
        if isinstance(loss_weights, dict):
            loss_weights = [loss_weights.get(n, 1.0) for n in names]
        self._losses_fns = self._loss_functions(loss)
        self._loss_weights = loss_weights
        self._loss_tracker = metrics_module.Mean(name="loss")
        # with a loss per output, Keras also logs each output's (unweighted) loss as '<output>_loss'
        self._output_loss_trackers = [metrics_module.Mean(name=f"{n}_loss") for n in names] \
            if isinstance(self._losses_fns, list) and len(self._losses_fns) > 1 else []
        if isinstance(metrics, dict):
            raise UnsupportedError("metrics given per output (a dict) are not supported by Dagscope")
        self._compile_metrics = CompileMetrics(metrics if isinstance(metrics, (list, tuple)) or metrics is None
                                               else [metrics])
        self.compiled = True
        self.stop_training = False

    def _loss_functions(self, loss):
        if loss is None:
            return None
        if isinstance(loss, (list, tuple)):
            return [losses_module.get(v) if v is not None else None for v in loss]
        return losses_module.get(loss)

    # ---- metrics ----
    @property
    def metrics(self) -> list:
        if not self.compiled:
            return []
        return [self._loss_tracker] + list(self._output_loss_trackers) + [self._compile_metrics]

    @property
    def output_names(self) -> list:
        outputs = getattr(self, "_outputs", None) or []
        return [t.node.layer.name for t in outputs]

    @property
    def input_names(self) -> list:
        inputs = getattr(self, "_inputs", None) or []
        return [t.node.layer.name for t in inputs]

    def _by_name(self, data, names: list, what: str):
        """A dict of arrays keyed by input (or output) names, as the model's list."""
        if not isinstance(data, dict):
            return data
        missing = [n for n in names if n not in data]
        if not names or missing:
            raise ValueError(f"The {what} dict's keys {sorted(data)} do not name the model's {what}s {names}.")
        return [data[n] for n in names]

    @property
    def metrics_names(self) -> list:
        return [m.name for m in self.metrics]

    def reset_metrics(self) -> None:
        for m in self.metrics:
            m.reset_state()

    def _require_compiled(self) -> None:
        if not self.compiled:
            raise ValueError("You must call `compile()` before using the model.")

    # ---- losses ----
    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        fns = self._losses_fns
        total = None
        if fns is not None:
            if isinstance(fns, list):
                ys, preds = _flatten(y), _flatten(y_pred)
                weights = self._loss_weights or [1.0] * len(fns)
                trackers = self._output_loss_trackers or [None] * len(fns)
                for fn, yt, yp, w, tracker in zip(fns, ys, preds, weights, trackers):
                    if fn is None:
                        continue
                    value = fn(yt, yp, sample_weight)
                    if tracker is not None:
                        tracker.update_state(value, sample_weight=_batch_size(yp))
                    term = value * float(w)
                    total = term if total is None else total + term
            else:
                total = fns(y, y_pred, sample_weight)
        for extra in self.losses:
            total = extra if total is None else total + extra
        if total is None:
            raise ValueError("No loss to compute. Provide a `loss` argument in `compile()`.")
        return total

    def compiled_loss(self, y, y_pred, sample_weight=None, regularization_losses=None):
        """Keras 2's name (custom train_steps written for tf.keras 2 call it)."""
        return self.compute_loss(y=y, y_pred=y_pred, sample_weight=sample_weight)

    @property
    def compiled_metrics(self):
        return self._compile_metrics

    def compute_metrics(self, x, y, y_pred, sample_weight=None):
        self._compile_metrics.update_state(y, y_pred, sample_weight)
        return self.get_metrics_result()

    def get_metrics_result(self) -> dict:
        out = {}
        for metric in self.metrics:
            result = metric.result()
            if isinstance(result, dict):
                out.update(result)
            else:
                out[metric.name] = result
        return out

    # ---- steps ----
    def train_step(self, data):
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        with tf_tape.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight, training=True)
        self._loss_tracker.update_state(loss, sample_weight=_batch_size(x))
        weights = self.trainable_weights
        if weights:
            grads = tape.gradient(loss, weights)
            self.optimizer.apply_gradients(zip(grads, weights))
        return self.compute_metrics(x, y, y_pred, sample_weight)

    def test_step(self, data):
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        y_pred = self(x, training=False)
        loss = self.compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight, training=False)
        self._loss_tracker.update_state(loss, sample_weight=_batch_size(x))
        return self.compute_metrics(x, y, y_pred, sample_weight)

    def predict_step(self, data):
        x, _, _ = unpack_x_y_sample_weight(data)
        return self(x, training=False)

    # ---- the loops ----
    def fit(self, x=None, y=None, batch_size=None, epochs=1, verbose="auto", callbacks=None, validation_split=0.0,
            validation_data=None, shuffle=True, class_weight=None, sample_weight=None, initial_epoch=0,
            steps_per_epoch=None, validation_steps=None, validation_batch_size=None, validation_freq=1):
        self._require_compiled()
        if class_weight is not None:
            raise UnsupportedError("fit(class_weight=...) is not supported by Dagscope")
        given_verbose, verbose = verbose, 1 if verbose == "auto" else int(verbose)
        x, y = self._by_name(x, self.input_names, "input"), self._by_name(y, self.output_names, "output")
        if isinstance(validation_data, tuple) and len(validation_data) >= 2:
            validation_data = (self._by_name(validation_data[0], self.input_names, "input"),
                               self._by_name(validation_data[1], self.output_names, "output"),
                               *validation_data[2:])
        if validation_split and validation_data is None:
            if _is_stream(x):
                raise ValueError("`validation_split` is only supported for Tensors or NumPy arrays, "
                                 f"found following types in the input: {[type(x)]}")
            (x, y, sample_weight), validation_data = _split(x, y, sample_weight, float(validation_split))
        data = make_data(x, y, sample_weight, batch_size, shuffle, steps_per_epoch)
        val = None
        if validation_data is not None:
            vx, vy, vsw = unpack_x_y_sample_weight(validation_data) if isinstance(validation_data, tuple) \
                else (validation_data, None, None)
            val = (vx, vy, vsw)
        steps = getattr(data, "steps", None)
        history = callbacks_module.History()
        progbar = ProgbarLogger(verbose, epochs)
        cbs = list(callbacks or []) + [history, progbar]
        params = {"verbose": given_verbose, "epochs": epochs, "steps": steps}     # (as given: Keras keeps 'auto')
        for cb in cbs:
            cb.set_model(self)
            cb.set_params(params)
        self.history = history
        self.stop_training = False
        BATCH_UNKNOWN.append(True)
        try:
            return self._fit_loop(data, val, cbs, params, progbar, history, steps, epochs, initial_epoch,
                                  batch_size, validation_batch_size, validation_steps, validation_freq)
        finally:
            BATCH_UNKNOWN.pop()

    def _fit_loop(self, data, val, cbs, params, progbar, history, steps, epochs, initial_epoch, batch_size,
                  validation_batch_size, validation_steps, validation_freq):
        for cb in cbs:
            cb.on_train_begin()
        logs = {}
        for epoch in range(initial_epoch, epochs):
            self.reset_metrics()
            for cb in cbs:
                cb.on_epoch_begin(epoch)
            seen = 0
            for step, batch in enumerate(data):
                for cb in cbs:
                    cb.on_train_batch_begin(step)
                    cb.on_batch_begin(step)
                logs = pythonify(self.train_step(batch))
                seen = step + 1
                for cb in cbs:
                    cb.on_train_batch_end(step, logs)
                    cb.on_batch_end(step, logs)
                if self.stop_training:
                    break
            if steps is None:
                params["steps"] = seen
                progbar.seen = seen
            epoch_logs = dict(logs)
            if val is not None and (epoch + 1) % validation_freq == 0:
                val_logs = self.evaluate(val[0], val[1], batch_size=validation_batch_size or batch_size,
                                         sample_weight=val[2], steps=validation_steps, verbose=0, return_dict=True,
                                         _in_fit=True)
                epoch_logs.update({"val_" + k: v for k, v in val_logs.items()})
            for cb in cbs:
                cb.on_epoch_end(epoch, epoch_logs)
            if self.stop_training:
                break
        for cb in cbs:
            cb.on_train_end(epoch_logs if epochs > initial_epoch else {})
        return history

    def evaluate(self, x=None, y=None, batch_size=None, verbose="auto", sample_weight=None, steps=None,
                 callbacks=None, return_dict=False, _in_fit=False, **kwargs):
        self._require_compiled()
        verbose = 1 if verbose == "auto" else int(verbose)
        x, y = self._by_name(x, self.input_names, "input"), self._by_name(y, self.output_names, "output")
        data = make_data(x, y, sample_weight, batch_size, False, steps)
        cbs = list(callbacks or [])
        for cb in cbs:
            cb.set_model(self)
            cb.on_test_begin()
        self.reset_metrics()
        logs, seen = {}, 0
        for step, batch in enumerate(data):
            for cb in cbs:
                cb.on_test_batch_begin(step)
            BATCH_UNKNOWN.append(True)
            try:
                logs = pythonify(self.test_step(batch))
            finally:
                BATCH_UNKNOWN.pop()
            seen = step + 1
            for cb in cbs:
                cb.on_test_batch_end(step, logs)
        for cb in cbs:
            cb.on_test_end(logs)
        if verbose and not _in_fit:
            print(display.progress_line(seen, seen, list(logs.items()), verbose))
        if return_dict:
            return logs
        return self._in_order(logs)

    def _in_order(self, logs: dict):
        names = []
        for metric in self.metrics:
            if isinstance(metric, CompileMetrics):
                names += [m.name for m in metric.metrics]
            else:
                names.append(metric.name)
        results = [logs[n] for n in names if n in logs] + [logs[k] for k in sorted(logs) if k not in names]
        return results[0] if len(results) == 1 else results

    def predict(self, x, batch_size=None, verbose="auto", steps=None, callbacks=None):
        verbose = 1 if verbose == "auto" else int(verbose)
        data = make_data(self._by_name(x, self.input_names, "input"), None, None, batch_size, False, steps)
        outputs, seen = [], 0
        for step, batch in enumerate(data):
            BATCH_UNKNOWN.append(True)
            try:
                outputs.append(self.predict_step(batch))
            finally:
                BATCH_UNKNOWN.pop()
            seen = step + 1
        if verbose:
            print(display.progress_line(seen, seen, [], verbose))
        if not outputs:
            raise ValueError("Unexpected result of `predict_function` (Empty batch_outputs). Please use "
                             "`Model.compile(..., run_eagerly=True)`, or `tf.config.run_functions_eagerly(True)` "
                             "for more information of where went wrong, or file a issue/bug to `keras`.")
        first = outputs[0]
        if isinstance(first, (list, tuple)):
            return [np.concatenate([np.asarray(o[i]) for o in outputs]) for i in range(len(first))]
        return np.concatenate([np.asarray(o) for o in outputs])

    def train_on_batch(self, x, y=None, sample_weight=None, return_dict=False, **kwargs):
        self._require_compiled()
        self.reset_metrics()
        data = ArrayData(x, y, sample_weight, batch_size=max(_length(map_structure(_array, x)), 1))
        logs = pythonify(self.train_step(next(iter(data))))
        return logs if return_dict else self._in_order(logs)

    def test_on_batch(self, x, y=None, sample_weight=None, return_dict=False):
        self._require_compiled()
        self.reset_metrics()
        data = ArrayData(x, y, sample_weight, batch_size=max(_length(map_structure(_array, x)), 1))
        logs = pythonify(self.test_step(next(iter(data))))
        return logs if return_dict else self._in_order(logs)

    def predict_on_batch(self, x):
        return np.asarray(self(map_structure(_tensor, map_structure(_array, x)), training=False))


def _batch_size(x) -> int:
    first = _flatten(x)[0]
    return int(first.shape[0])
