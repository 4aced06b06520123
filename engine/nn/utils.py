"""nn.utils: gradient clipping (clip_grad_norm_, clip_grad_value_) and parameters_to_vector."""
from __future__ import annotations

import math

import numpy as np

from engine import functional
from engine.creation import full
from engine.tensor import Tensor


def _with_grads(parameters) -> list:
    params = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    return [p for p in params if p.grad is not None]


def clip_grad_norm_(parameters, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                    foreach=None) -> Tensor:
    """Scale all gradients together so their joint norm is at most max_norm; returns the norm before."""
    params = _with_grads(parameters)
    if not params:
        return Tensor(np.array(0.0, dtype=np.float32))
    grads = [p.grad.array for p in params]
    if norm_type == math.inf:
        total = max(float(np.abs(g).max()) if g.size else 0.0 for g in grads)
    else:
        total = float(sum(float(np.sum(np.abs(g.astype(np.float64)) ** norm_type)) for g in grads)) ** (1.0 / norm_type)
    if error_if_nonfinite and not math.isfinite(total):
        raise RuntimeError(f"The total norm of order {float(norm_type)} for gradients from `parameters` is "
                           "non-finite, so it cannot be clipped. To disable this error and scale the gradients "
                           "by the non-finite norm anyway, set `error_if_nonfinite=False`")
    # As PyTorch: clip_coef = max_norm / (total + 1e-6), clamped to at most 1, multiplied in place.
    coef = min(max_norm / (total + 1e-6), 1.0)
    for g in grads:
        g *= g.dtype.type(coef)
    return Tensor(np.array(total, dtype=grads[0].dtype))


def clip_grad_value_(parameters, clip_value: float, foreach=None) -> None:
    for p in _with_grads(parameters):
        np.clip(p.grad.array, -clip_value, clip_value, out=p.grad.array)


def parameters_to_vector(parameters) -> Tensor:
    """The parameters flattened and concatenated, in the graph (as PyTorch's torch.cat of views): a
    penalty on the vector sends gradients back to the parameters."""
    return functional.cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec: Tensor, parameters) -> None:
    offset = 0
    for p in parameters:
        n = p.array.size
        p.array[...] = vec.array[offset:offset + n].reshape(p.array.shape)
        offset += n


def pad_sequence(sequences, batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> Tensor:
    """Tensors of different lengths along dim 0, padded with padding_value into one: (longest, n, *) or,
    batch_first, (n, longest, *). As PyTorch's: a filled tensor with each sequence copied into its place,
    so gradients flow back through the copies (CopySlices)."""
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    longest = max(s.array.shape[0] for s in sequences)
    rest = tuple(sequences[0].array.shape[1:])
    shape = (len(sequences), longest) + rest if batch_first else (longest, len(sequences)) + rest
    out = full(shape, padding_value, dtype=sequences[0].dtype)
    for i, seq in enumerate(sequences):
        n = seq.array.shape[0]
        place = slice(0, n) if padding_side == "right" else slice(longest - n, longest)
        out[(i, place) if batch_first else (place, i)] = seq
    return out
