"""Numerical gradient check of a recorded backward: replay the forward DAG in float64 with each
leaf element nudged (central differences) and compare with what autograd sent to that leaf."""
from __future__ import annotations

import numpy as np

MAX_NODES = 300            # larger graphs are not checked: the replay would cost too much
MAX_ELEMENTS = 2_000_000   # total elements of all intermediate values
SAMPLES_PER_LEAF = 6       # elements nudged per leaf (chosen at random, seeded)
EPS = 1e-6
# float32 autograd against float64 differences: correct gradients agree to about 1e-4 relative (the
# worst of 683 leaves of the examples and sweep programs: 1.2e-4), up to ~4.5e-3 where float32's
# 1 - tanh(x)^2 cancels in saturation; a gradient 1% off shows as 1e-2.
MAX_REL_ERR = 5e-3


def _replay(order, root_node, overrides: dict) -> np.ndarray:
    """Run the recorded ops again in float64; `overrides` maps id(leaf tensor) -> array."""
    values: dict = {}
    for node in order:
        args = []
        for t in node.saved:
            if t.grad_fn is not None and id(t.grad_fn) in values:
                args.append(values[id(t.grad_fn)])
            else:
                a = overrides.get(id(t), t.array)
                args.append(a.astype(np.float64) if a.dtype.kind == "f" else a)
        values[id(node)] = node.op.run(*args, **node.attrs)
    return values[id(root_node)]


def check(order, root_node, seed_grad, leaves, autograd_grads: dict) -> dict:
    """Per leaf id: max abs/rel error between finite differences and autograd, and ok."""
    if not order or len(order) > MAX_NODES or sum(n.out_data.size for n in order) > MAX_ELEMENTS:
        return {}
    if any(getattr(n, "op", None) is None or not hasattr(n.op, "run") for n in order):
        return {}      # custom autograd.Functions have no registry forward to replay
    seed = np.asarray(seed_grad, dtype=np.float64)
    rng = np.random.default_rng(0)
    results = {}
    for fid, t in leaves:
        grad = autograd_grads.get(fid)
        if grad is None or t.array.dtype.kind != "f" or t.array.size == 0:
            continue
        base = t.array.astype(np.float64)
        picks = rng.choice(base.size, size=min(SAMPLES_PER_LEAF, base.size), replace=False)
        worst_abs = worst_rel = 0.0
        for flat in picks:
            idx = np.unravel_index(int(flat), base.shape)
            plus, minus = base.copy(), base.copy()
            plus[idx] += EPS
            minus[idx] -= EPS
            f_plus = float(np.sum(_replay(order, root_node, {id(t): plus}) * seed))
            f_minus = float(np.sum(_replay(order, root_node, {id(t): minus}) * seed))
            numeric = (f_plus - f_minus) / (2 * EPS)
            analytic = float(np.asarray(grad, dtype=np.float64)[idx])
            err = abs(numeric - analytic)
            worst_abs = max(worst_abs, err)
            worst_rel = max(worst_rel, err / max(abs(numeric), abs(analytic), 1e-3))
        results[fid] = {"max_abs_err": worst_abs, "max_rel_err": worst_rel, "samples": len(picks),
                        "ok": bool(worst_rel < MAX_REL_ERR)}
    return results
