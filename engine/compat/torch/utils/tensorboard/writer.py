"""`torch.utils.tensorboard.writer.SummaryWriter`: what a training loop logs, kept for the charts.

Nothing is written to disk (no event files, no log folder is made): each scalar and histogram
goes to the run's recorder (engine/record/summaries.py) and reaches the page in the run record's
`summaries` field; `add_graph` traces the model as TensorBoard does (torch.jit.trace), so its
graph is drawn with the run's other graphs. Outside a recorded run the values are dropped."""
from __future__ import annotations

import numpy as np

from engine.capture.tracing import trace
from engine.compat.scope import sentence
from engine.compat.torch_class_names import TorchABCClassRepr
from engine.errors import UnsupportedAttributeError
from engine.record.active import current
from engine.tensor import Tensor


def _array(value) -> np.ndarray:
    if isinstance(value, Tensor):
        return np.asarray(value.array)
    return np.asarray(value)


def _scalar(value) -> float:
    array = _array(value)
    if array.size != 1 or array.dtype.kind not in "biuf":
        raise ValueError(f"add_scalar expects a single number (a Python number, a one-element tensor or "
                         f"array), got {type(value).__name__} of shape {tuple(array.shape)}")
    return float(array.reshape(()))


def _step(global_step):
    if global_step is None:
        return None
    return int(_scalar(global_step))


class SummaryWriter(metaclass=TorchABCClassRepr):
    def __init__(self, log_dir=None, comment: str = "", purge_step=None, max_queue: int = 10,
                 flush_secs: int = 120, filename_suffix: str = ""):
        self.log_dir = str(log_dir) if log_dir is not None else f"runs/dagscope{comment}"
        self.closed = False

    def get_logdir(self) -> str:
        return self.log_dir

    def add_scalar(self, tag: str, scalar_value, global_step=None, walltime=None, new_style: bool = False,
                   double_precision: bool = False) -> None:
        value, step = _scalar(scalar_value), _step(global_step)
        recorder = current()
        if recorder is not None:
            recorder.summaries.scalar(tag, value, step)

    def add_scalars(self, main_tag: str, tag_scalar_dict: dict, global_step=None, walltime=None) -> None:
        """One series per key, named `main_tag/key` (TensorBoard keeps them as runs of main_tag)."""
        for key, value in tag_scalar_dict.items():
            self.add_scalar(f"{main_tag}/{key}", value, global_step)

    def add_histogram(self, tag: str, values, global_step=None, bins="tensorflow", walltime=None,
                      max_bins=None) -> None:
        array = _array(values)
        if array.dtype.kind not in "biuf":
            raise ValueError(f"add_histogram expects numbers, got an array of {array.dtype}")
        if array.size == 0:
            raise ValueError("The input has no element.")       # TensorBoard's own words
        step = _step(global_step)
        recorder = current()
        if recorder is not None:
            recorder.summaries.histogram(tag, array.reshape(-1), step)

    def add_graph(self, model, input_to_model=None, verbose: bool = False, use_strict_trace: bool = True) -> None:
        """Trace the model on the example input (TensorBoard does the same with torch.jit.trace):
        the traced graph joins the run's graphs."""
        if input_to_model is None:
            raise TypeError("add_graph needs input_to_model: Dagscope traces the model on it, as TensorBoard does")
        example = tuple(input_to_model) if isinstance(input_to_model, list) else input_to_model
        trace(model, example, strict=use_strict_trace)

    def flush(self) -> None:
        """Nothing is buffered: every value is in the run record already."""

    def close(self) -> None:
        self.closed = True

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __getattr__(self, name: str):
        """A method Dagscope's writer lacks (add_text, add_image, add_hparams, ...) is named, with what it has,
        rather than Python's bare AttributeError."""
        if name.startswith("_"):
            raise AttributeError(name)
        full = f"torch.utils.tensorboard.SummaryWriter.{name}"
        has = ", ".join(sorted(n for n in vars(SummaryWriter) if not n.startswith("_")))
        raise UnsupportedAttributeError(f"SummaryWriter.{name} is not supported by Dagscope (its Charts tab plots "
                                        f"scalars and histograms). {sentence(full)} SummaryWriter has: {has}.")
