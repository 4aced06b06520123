"""`tf.summary` (TF2): what a training loop logs, kept for the charts as torch's SummaryWriter's is.

`tf.summary.create_file_writer(logdir)` makes a writer; inside `with writer.as_default(step=...):`
`tf.summary.scalar(name, value, step=None)` and `tf.summary.histogram` hand each value to the run's
recorder (engine/record/summaries.py), and the run record carries them in its `summaries` field.
Nothing is written to disk (no event file, no log folder). As in TF: with no default writer a summary
returns False and keeps nothing; a step left out is the writer's (`as_default(step=)`) or
`tf.summary.experimental.set_step`'s, and none at all is TF's ValueError. Outside a recorded run the
values are dropped."""
from __future__ import annotations

import contextlib
import types

import numpy as np

from engine.compat.tensorflow import context
from engine.compat.tensorflow._surface import unsupported_names
from engine.compat.tensorflow.eager import EagerTensor
from engine.errors import UnsupportedError
from engine.record.active import current

__all__ = ["SummaryWriter", "create_file_writer", "create_noop_writer", "scalar", "histogram", "flush",
           "experimental"]


def _state():
    """The run's TF state: its default writers (innermost last) and step (experimental.set_step)."""
    return context.state().summary


class SummaryWriter:
    """TF's writer: `as_default(step=None)` makes it the default for the `with` block (and sets the
    step for it), `set_as_default(step=None)` for the rest of the run."""

    def __init__(self, logdir: str = "", noop: bool = False):
        self._logdir, self._noop, self._closed = str(logdir), noop, False

    @contextlib.contextmanager
    def as_default(self, step=None):
        st = _state()
        saved = st.step
        st.writers.append(self)
        if step is not None:
            st.step = step
        try:
            yield self
        finally:
            st.writers.remove(self)
            st.step = saved

    def set_as_default(self, step=None) -> None:
        st = _state()
        st.writers.append(self)
        if step is not None:
            st.step = step

    def init(self) -> None:
        """Nothing to open: no file is written."""

    def flush(self) -> None:
        """Nothing is buffered: every value is in the run record already."""

    def close(self) -> None:
        self._closed = True


def create_file_writer(logdir, max_queue=None, flush_millis=None, filename_suffix=None, name=None,
                       experimental_trackable=False, experimental_mesh=None) -> SummaryWriter:
    return SummaryWriter(logdir)


def create_noop_writer() -> SummaryWriter:
    return SummaryWriter(noop=True)


def _writer():
    """The default writer that records, or None (then a summary returns False, as TF's)."""
    st = _state()
    writer = st.writers[-1] if st.writers else None
    return None if writer is None or writer._noop or writer._closed else writer


def _array(value, what: str) -> np.ndarray:
    if hasattr(value, "_dagscope_value"):                      # a tf.Variable
        value = value._dagscope_value()
    array = np.asarray(value.array if isinstance(value, EagerTensor) else value)
    if array.dtype.kind not in "biuf":
        raise ValueError(f"tf.summary.{what} expects numbers, got {array.dtype}")
    return array


def _step(step) -> int:
    step = _state().step if step is None else step
    if step is None:
        raise ValueError("No step set. Please specify one either through the `step` argument or through "
                         "tf.summary.experimental.set_step()")
    return int(_array(step, "step").reshape(()))


def _write(what: str, name, data, step, keep) -> EagerTensor:
    if context.state().tracing is not None:
        raise UnsupportedError(f"tf.summary.{what} inside a tf.function is not supported by Dagscope: call it "
                               "in the eager loop around the function (return the value from it)")
    if _writer() is None:
        return EagerTensor(np.asarray(False))
    array, at = _array(data, what), _step(step)
    recorder = current()
    if recorder is not None:
        keep(recorder.summaries, str(name), array, at)
    return EagerTensor(np.asarray(True))


def scalar(name, data, step=None, description=None) -> EagerTensor:
    def keep(summaries, tag, array, at):
        if array.size != 1:
            raise ValueError(f"tf.summary.scalar expects a scalar, got a tensor of shape {tuple(array.shape)}")
        summaries.scalar(tag, float(array.reshape(())), at)
    return _write("scalar", name, data, step, keep)


def histogram(name, data, step=None, buckets=None, description=None) -> EagerTensor:
    def keep(summaries, tag, array, at):
        summaries.histogram(tag, array.reshape(-1), at)
    return _write("histogram", name, data, step, keep)


def flush(writer=None, name=None) -> None:
    """Nothing is buffered."""


def _set_step(step) -> None:
    """`tf.summary.experimental.set_step`: the step of later summaries that give none."""
    _state().step = step


def _get_step():
    return _state().step


experimental = types.ModuleType("engine.compat.tensorflow.summary.experimental")
experimental.set_step, experimental.get_step = _set_step, _get_step
experimental.__getattr__ = unsupported_names("tf.summary.experimental", vars(experimental))

__getattr__ = unsupported_names("tf.summary", globals())
