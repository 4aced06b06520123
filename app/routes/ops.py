"""GET /api/ops: one explanation card per registered op, generated from engine.ops.OPS."""
from __future__ import annotations

from fastapi import APIRouter

router = APIRouter()


def op_cards() -> dict[str, dict]:
    """Cards keyed by op name; backward node names (MulBackward0) point back to their op."""
    from engine.ops.registry import OPS
    cards: dict[str, dict] = {}
    for name, op in sorted(OPS.items()):
        # grad_fn may depend on shapes (a callable); then only the op name identifies it
        grad_fn = op.grad_fn if isinstance(op.grad_fn, str) and op.grad_fn else None
        cards[name] = {"name": name, "kind": op.kind, "formula": op.formula, "rule": op.rule,
                       "grad_fn": grad_fn, "differentiable": op.differentiable,
                       "attrs": list(op.attrs), "doc": op.doc}
    return cards


@router.get("/api/ops")
def list_ops():
    cards = op_cards()
    by_grad_fn = {c["grad_fn"]: name for name, c in cards.items() if c["grad_fn"]}
    return {"ops": cards, "grad_fns": by_grad_fn}
