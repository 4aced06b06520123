"""The record layer listening: while a Recorder is in use, it hears what the core and the captures
publish through engine.hooks — every new autograd node (noted with the user's line and module),
every backward walk, every captured graph and every capture's warning."""
from __future__ import annotations

import contextlib

from engine import hooks
from engine.record import static
from engine.record.active import current, make_current
from engine.record.recorder import Recorder, backward_call, model_called, note_where, value_read
from engine.tensor import native_notes_where
from engine.user_code import USER_FILENAME


@contextlib.contextmanager
def use_recorder(recorder: Recorder):
    """Make `recorder` the current one; meanwhile every new grad_fn notes where the user's code
    made it (its line, and the nn.Module path such as `fc1`), and every backward walk and captured
    graph is recorded (by the innermost recorder: the hooks are subscribed once, by the outermost)."""
    prev = make_current(recorder)
    if prev is not None:
        try:
            yield recorder
        finally:
            make_current(prev)
        return
    native_notes_where(USER_FILENAME)
    try:
        with hooks.subscribed(hooks.NODE_MADE, note_where), hooks.subscribed(hooks.BACKWARD_CALL, backward_call), \
                hooks.subscribed(hooks.GRAPH_CAPTURED, static.graph_captured), hooks.subscribed(hooks.WARNING, _warn), \
                hooks.subscribed(hooks.MODULE_CALLED, model_called), hooks.subscribed(hooks.VALUE_READ, value_read):
            hooks.OP_APPLIED.append(recorder.dataflow_observer)     # until the first backward (record/dataflow.py)
            try:
                yield recorder
            finally:
                recorder.stop_following_ops()    # (what it kept is drawn by finish(), after the run)
    finally:
        native_notes_where(None)
        make_current(prev)


def _warn(message: str) -> None:
    rec = current()
    if rec is not None:
        rec.warn(message)
