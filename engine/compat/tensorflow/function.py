"""tf.function, tf.cond, tf.while_loop (eager parts; graph capture pending)."""
from __future__ import annotations


def cond(pred, true_fn=None, false_fn=None, name=None):
    return true_fn() if bool(pred) else false_fn()


def while_loop(cond, body, loop_vars, **kwargs):
    while bool(cond(*loop_vars)):
        loop_vars = body(*loop_vars)
    return loop_vars


def function(func=None, **kwargs):
    return func
