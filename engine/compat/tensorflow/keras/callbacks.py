"""`keras.callbacks`: the Callback base, History (what `fit` returns; each epoch's numbers also go to
the run's Charts, through the recorder's summaries), EarlyStopping, LambdaCallback,
LearningRateScheduler, ReduceLROnPlateau, and TerminateOnNaN — with Keras 3's messages."""
from __future__ import annotations

import math
import warnings

import numpy as np

from engine import record
from engine.compat.tensorflow._surface import unsupported_names
from engine.errors import UnsupportedError


class Callback:
    def __init__(self):
        self.model = None
        self.params = {}

    def set_model(self, model) -> None:
        self.model = model

    def set_params(self, params) -> None:
        self.params = params

    def on_train_begin(self, logs=None): pass
    def on_train_end(self, logs=None): pass
    def on_epoch_begin(self, epoch, logs=None): pass
    def on_epoch_end(self, epoch, logs=None): pass
    def on_train_batch_begin(self, batch, logs=None): pass
    def on_train_batch_end(self, batch, logs=None): pass
    def on_test_begin(self, logs=None): pass
    def on_test_end(self, logs=None): pass
    def on_test_batch_begin(self, batch, logs=None): pass
    def on_test_batch_end(self, batch, logs=None): pass
    def on_predict_begin(self, logs=None): pass
    def on_predict_end(self, logs=None): pass
    def on_predict_batch_begin(self, batch, logs=None): pass
    def on_predict_batch_end(self, batch, logs=None): pass

    def on_batch_begin(self, batch, logs=None): pass
    def on_batch_end(self, batch, logs=None): pass


class History(Callback):
    """`history.history`: each logged number per epoch; `history.epoch`, `history.params`.

    Each fit also publishes its epochs to the run's summaries, so the Charts tab plots `loss`,
    `accuracy`, `val_loss` ... (a second fit in the same run continues the same series)."""

    def __init__(self):
        super().__init__()
        self.history: dict = {}
        self.epoch: list = []

    def on_train_begin(self, logs=None):
        self.epoch = []

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        self.epoch.append(epoch)
        for k, v in logs.items():
            self.history.setdefault(k, []).append(v)
        recorder = record.current()
        if recorder is not None:
            for k, v in logs.items():
                if isinstance(v, (int, float, np.floating, np.integer)):
                    recorder.summaries.scalar(k, float(v), None)

    def __repr__(self) -> str:
        return "<keras.src.callbacks.history.History object>"


class LambdaCallback(Callback):
    def __init__(self, on_epoch_begin=None, on_epoch_end=None, on_train_begin=None, on_train_end=None,
                 on_train_batch_begin=None, on_train_batch_end=None, **kwargs):
        super().__init__()
        for name, fn in [("on_epoch_begin", on_epoch_begin), ("on_epoch_end", on_epoch_end),
                         ("on_train_begin", on_train_begin), ("on_train_end", on_train_end),
                         ("on_train_batch_begin", on_train_batch_begin),
                         ("on_train_batch_end", on_train_batch_end), *kwargs.items()]:
            if fn is not None:
                setattr(self, name, fn)


class EarlyStopping(Callback):
    """Stop when `monitor` has not improved by min_delta for `patience` epochs (Keras 3's rules,
    restore_best_weights and start_from_epoch included)."""

    def __init__(self, monitor="val_loss", min_delta=0, patience=0, verbose=0, mode="auto", baseline=None,
                 restore_best_weights=False, start_from_epoch=0):
        super().__init__()
        self.monitor, self.patience, self.verbose = monitor, int(patience), verbose
        self.baseline, self.restore_best_weights = baseline, restore_best_weights
        self.start_from_epoch = start_from_epoch
        self.min_delta = abs(min_delta)
        if mode == "auto":
            mode = "max" if ("acc" in monitor or monitor.endswith("auc")) and not monitor.endswith("loss") else "min"
        self.mode = mode
        self.wait = 0
        self.stopped_epoch = 0
        self.best_weights = None

    def _better(self, current, reference) -> bool:
        if self.mode == "min":
            return current + self.min_delta < reference
        return current - self.min_delta > reference

    def on_train_begin(self, logs=None):
        self.wait, self.stopped_epoch, self.best_weights, self.best_epoch = 0, 0, None, 0
        self.best = math.inf if self.mode == "min" else -math.inf

    def on_epoch_end(self, epoch, logs=None):
        current = (logs or {}).get(self.monitor)
        if current is None:
            warnings.warn(f"Early stopping conditioned on metric `{self.monitor}` which is not available. "
                          f"Available metrics are: {','.join(logs or {})}", stacklevel=2)
            return
        if epoch < self.start_from_epoch:
            return
        if self.restore_best_weights and self.best_weights is None:
            self.best_weights = self.model.get_weights()
            self.best_epoch = epoch
        self.wait += 1
        if self._better(current, self.best):
            self.best, self.best_epoch = current, epoch
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            if self.baseline is None or self._better(current, self.baseline):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True

    def on_train_end(self, logs=None):
        if self.stopped_epoch > 0 and self.verbose > 0:
            print(f"Epoch {self.stopped_epoch + 1}: early stopping")
        if self.restore_best_weights and self.best_weights is not None:
            if self.verbose > 0:
                print(f"Restoring model weights from the end of the best epoch: {self.best_epoch + 1}.")
            self.model.set_weights(self.best_weights)


class LearningRateScheduler(Callback):
    def __init__(self, schedule, verbose=0):
        super().__init__()
        self.schedule, self.verbose = schedule, verbose

    def on_epoch_begin(self, epoch, logs=None):
        try:
            lr = self.schedule(epoch, float(self.model.optimizer.learning_rate))
        except TypeError:
            lr = self.schedule(epoch)
        self.model.optimizer.learning_rate = float(lr)
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: LearningRateScheduler setting learning rate to {float(lr)}.")

    def on_epoch_end(self, epoch, logs=None):
        if logs is not None:
            logs["learning_rate"] = float(self.model.optimizer.learning_rate)


class ReduceLROnPlateau(Callback):
    def __init__(self, monitor="val_loss", factor=0.1, patience=10, verbose=0, mode="auto", min_delta=1e-4,
                 cooldown=0, min_lr=0.0, **kwargs):
        super().__init__()
        if factor >= 1.0:
            raise ValueError(f"ReduceLROnPlateau does not support a factor >= 1.0. Received factor={factor}")
        self.monitor, self.factor, self.patience, self.verbose = monitor, factor, patience, verbose
        self.min_delta, self.cooldown, self.min_lr = min_delta, cooldown, min_lr
        self.mode = "max" if mode == "max" or mode == "auto" and "acc" in monitor else "min"
        self.wait = self.cooldown_counter = 0
        self.best = math.inf if self.mode == "min" else -math.inf

    def on_epoch_end(self, epoch, logs=None):
        logs = logs if logs is not None else {}
        logs["learning_rate"] = float(self.model.optimizer.learning_rate)
        current = logs.get(self.monitor)
        if current is None:
            return
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        better = current < self.best - self.min_delta if self.mode == "min" else current > self.best + self.min_delta
        if better:
            self.best, self.wait = current, 0
        elif self.cooldown_counter <= 0:
            self.wait += 1
            if self.wait >= self.patience:
                old = float(self.model.optimizer.learning_rate)
                if old > np.float32(self.min_lr):
                    new = max(old * self.factor, self.min_lr)
                    self.model.optimizer.learning_rate = new
                    if self.verbose > 0:
                        print(f"\nEpoch {epoch + 1}: ReduceLROnPlateau reducing learning rate to {new}.")
                    self.cooldown_counter, self.wait = self.cooldown, 0


class TerminateOnNaN(Callback):
    def on_batch_end(self, batch, logs=None):
        loss = (logs or {}).get("loss")
        if loss is not None and not math.isfinite(loss):
            print(f"Batch {batch}: Invalid loss, terminating training")
            self.model.stop_training = True

    on_train_batch_end = on_batch_end


def _disk(name):
    class NeedsDisk(Callback):
        def __init__(self, *args, **kwargs):
            raise UnsupportedError(f"keras.callbacks.{name} writes files, which a Dagscope run does not keep; "
                                   "History (what fit returns) and the Charts tab show the same numbers")
    NeedsDisk.__name__ = name
    return NeedsDisk



class ModelCheckpoint(Callback):
    """Keras 3's checkpoints, kept in the run's memory under their file names (nothing is written):
    `model.load_weights(path)` restores them later in the run. Its messages are Keras'."""

    def __init__(self, filepath, monitor="val_loss", verbose=0, save_best_only=False, save_weights_only=False,
                 mode="auto", save_freq="epoch", initial_value_threshold=None):
        super().__init__()
        if save_freq != "epoch":
            raise UnsupportedError("ModelCheckpoint(save_freq=<batches>) is not supported by Dagscope")
        self.filepath, self.monitor, self.verbose = str(filepath), monitor, verbose
        self.save_best_only, self.save_weights_only = save_best_only, save_weights_only
        if save_weights_only and not self.filepath.endswith(".weights.h5"):
            raise ValueError("When using `save_weights_only=True` in `ModelCheckpoint`, the filepath provided must "
                             f"end in `.weights.h5` (Keras weights format). Received: filepath={self.filepath}")
        if mode == "auto":
            mode = "max" if monitor.endswith(("acc", "accuracy", "auc")) else "min"
        self.mode, self.best = mode, initial_value_threshold

    def _better(self, current) -> bool:
        if self.best is None:
            return True
        return current < self.best if self.mode == "min" else current > self.best

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        path = self.filepath.format(epoch=epoch + 1, **logs)
        if self.save_best_only:
            current = logs.get(self.monitor)
            if current is None:
                warnings.warn(f"Can save best model only with {self.monitor} available.", stacklevel=2)
            else:
                best = "None" if self.best is None else f"{self.best:.5f}"
                if not self._better(current):
                    if self.verbose > 0:
                        print(f"\nEpoch {epoch + 1}: {self.monitor} did not improve from {best}")
                    return
                if self.verbose > 0:
                    print(f"\nEpoch {epoch + 1}: {self.monitor} improved from {best} to {current:.5f}, saving "
                          f"model to {path}")
                self.best = current
        elif self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: saving model to {path}")
        self.model._keep_weights(path)
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: finished saving model to {path}")


TensorBoard, CSVLogger, BackupAndRestore = (_disk(n) for n in ("TensorBoard", "CSVLogger", "BackupAndRestore"))

__getattr__ = unsupported_names("tf.keras.callbacks", globals())
