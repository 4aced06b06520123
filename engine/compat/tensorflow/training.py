"""TF1 training in graph mode: variables, initializers, `tf.gradients`, `tf.group` and
`tf.train.GradientDescentOptimizer` — the whole training step one static graph, run by a Session.

A graph variable (variables.GraphVariable) is a "VariableV2" op: the Session lowers it to an IR input (role "param") fed
from the values the session holds. `assign` ops compute the new value inside the graph; the
session stores it after the run. `tf.gradients(ys, xs)` appends the backward nodes to the same IR
graph, from the op registry's vjp rules (engine.autodiff's emitter), as TF1 built gradient ops
into the graph — so `sess.run(train_op)` shows forward, backward and the update in one graph.
"""
from __future__ import annotations

import numpy as np

from engine.autodiff import _emit_vjps, depends_on
from engine.compat.tensorflow import context
from engine.compat.tensorflow.graph import GraphTensor, default_graph, reaches
from engine.compat.tensorflow.ops import constant, convert_to_tensor, multiply, sqrt
from engine.compat.tensorflow.variables import GLOBAL, TRAINABLE, GraphVariable
from engine.errors import UnsupportedError


# ---- initializers and groups ----------------------------------------------------------------------

def global_variables() -> list:
    return list(default_graph().collections.get(GLOBAL, []))


def trainable_variables() -> list:
    return list(default_graph().collections.get(TRAINABLE, []))


def variables_initializer(var_list, name="init"):
    return default_graph().add_no_op(name, [v.initializer.op for v in var_list])


def global_variables_initializer():
    return variables_initializer(global_variables(), name="init")


def group(*inputs, name=None):
    ops = []
    for x in inputs:
        for item in (x if isinstance(x, (list, tuple)) else [x]):
            ops.append(item.op if isinstance(item, GraphTensor) else item)
    return default_graph().add_no_op(name or "group_deps", ops)


# ---- gradients ------------------------------------------------------------------------------------------

def gradients(ys, xs, grad_ys=None, name="gradients", **kwargs):
    """`tf.gradients`: symbolic d(sum ys)/dx for each x — None where x does not reach ys, as in TF1."""
    if grad_ys is not None:
        raise UnsupportedError("tf.gradients(grad_ys=...) is not supported by Dagscope")
    if not context.building_graph():
        raise RuntimeError("tf.gradients is not supported when eager execution is enabled. Use tf.GradientTape "
                           "instead.")
    ys = [convert_to_tensor(y) for y in (ys if isinstance(ys, (list, tuple)) else [ys])]
    x_list = xs if isinstance(xs, (list, tuple)) else [xs]
    xs_t = [x._dagscope_graph_value(None) if hasattr(x, "_dagscope_graph_value") else convert_to_tensor(x)
            for x in x_list]
    connected = [x for x in xs_t if x.dtype.is_floating and reaches(ys, x, for_gradients=True)]
    results = {}
    if connected:
        n_ys = len(ys)

        def lower(ir, *values):
            return _lower_gradients(ir, list(values[:n_ys]), list(values[n_ys:]))
        outs = ys[0].graph.add_multi("SymbolicGradient", name, ys + connected, {"multi": True}, lower,
                                     [(x.dtype, x.shape) for x in connected])
        results = {id(x): g for x, g in zip(connected, outs)}
    return [results.get(id(x)) for x in xs_t]


def _lower_gradients(ir, ys: list, xs: list) -> list:
    """Append the backward of `ys` with respect to `xs` to the IR graph being lowered."""
    forward_nodes = list(ir.nodes)
    grads: dict = {}
    for y in ys:
        one = ir.constant(np.ones((), dtype=y.dtype))
        seed = ir.call("expand", one, shape=tuple(y.shape)) if y.shape else one
        grads[y.id] = seed if y.id not in grads else ir.call("add", grads[y.id], seed)
    _emit_vjps(ir, forward_nodes, grads, depends_on(ir, {x.id for x in xs}))
    out = []
    for x in xs:
        g = grads.get(x.id)
        if g is None:                         # connected in the TF graph, but only through non-float paths
            zero = ir.constant(np.zeros((), dtype=x.dtype))
            g = ir.call("expand", zero, shape=tuple(x.shape)) if x.shape else zero
        out.append(g)
    return out


# ---- tf.train -------------------------------------------------------------------------------------------

class Optimizer:
    """TF1's optimizer protocol: compute_gradients (tf.gradients), apply_gradients (assign ops for
    each variable, grouped into one op), minimize (both). Subclasses give `_apply(g, v)`."""

    def __init__(self, learning_rate, name: str):
        self.learning_rate = learning_rate
        self._name = name

    def compute_gradients(self, loss, var_list=None, **kwargs) -> list:
        var_list = list(var_list) if var_list is not None else trainable_variables()
        if not var_list:
            raise ValueError("No variables to optimize.")
        return list(zip(gradients(loss, var_list), var_list))

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        pairs = [(g, v) for g, v in grads_and_vars if g is not None]
        if not pairs:
            raise ValueError("No gradients provided for any variable.")
        updates = [u for g, v in pairs for u in self._apply(g, v)] + self._finish()
        if global_step is not None:
            updates.append(global_step.assign_add(1))
        return group(*updates, name=name or self._name)

    def minimize(self, loss, global_step=None, var_list=None, name=None, **kwargs):
        return self.apply_gradients(self.compute_gradients(loss, var_list), global_step, name)

    def _slot(self, var, suffix: str, initial=0.0) -> GraphVariable:
        value = constant(np.full(var.shape.as_list(), initial, dtype=var.dtype.np))
        return GraphVariable(value, trainable=False, name=f"{var._name}/{suffix}")

    def _finish(self) -> list:
        return []


class GradientDescentOptimizer(Optimizer):
    """`tf.train.GradientDescentOptimizer`: var -= learning_rate * gradient."""

    def __init__(self, learning_rate, use_locking=False, name="GradientDescent"):
        super().__init__(learning_rate, name)

    def _apply(self, g, v) -> list:
        return [v.assign_sub(multiply(g, self.learning_rate))]


class MomentumOptimizer(Optimizer):
    """`tf.train.MomentumOptimizer`: accum = momentum * accum + g; var -= learning_rate * accum."""

    def __init__(self, learning_rate, momentum, use_locking=False, name="Momentum", use_nesterov=False):
        super().__init__(learning_rate, name)
        if use_nesterov:
            raise UnsupportedError("MomentumOptimizer(use_nesterov=True) is not supported by Dagscope")
        self.momentum = momentum

    def _apply(self, g, v) -> list:
        accum = self._slot(v, self._name)
        new_accum = accum.value() * self.momentum + g
        return [accum.assign(new_accum), v.assign_sub(new_accum * self.learning_rate)]


class AdamOptimizer(Optimizer):
    """`tf.train.AdamOptimizer` (TF1's rule): with beta powers b1^t, b2^t kept as variables,
    lr_t = lr * sqrt(1 - b2^t) / (1 - b1^t); m = b1 m + (1-b1) g; v = b2 v + (1-b2) g^2;
    var -= lr_t * m / (sqrt(v) + epsilon)."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, use_locking=False,
                 name="Adam"):
        super().__init__(learning_rate, name)
        self.beta1, self.beta2, self.epsilon = beta1, beta2, epsilon
        self._powers = None

    def _apply(self, g, v) -> list:
        if self._powers is None:
            self._powers = (GraphVariable(constant(self.beta1, dtype=v.dtype), trainable=False, name="beta1_power"),
                            GraphVariable(constant(self.beta2, dtype=v.dtype), trainable=False, name="beta2_power"))
        b1_power, b2_power = (p.value() for p in self._powers)
        lr_t = self.learning_rate * sqrt(1.0 - b2_power) / (1.0 - b1_power)
        m, s = self._slot(v, self._name), self._slot(v, f"{self._name}_1")
        m_t = m.value() * self.beta1 + g * (1.0 - self.beta1)
        s_t = s.value() * self.beta2 + g * g * (1.0 - self.beta2)
        return [m.assign(m_t), s.assign(s_t), v.assign_sub(lr_t * m_t / (sqrt(s_t) + self.epsilon))]

    def _finish(self) -> list:
        b1, b2 = self._powers
        return [b1.assign(b1.value() * self.beta1), b2.assign(b2.value() * self.beta2)]
