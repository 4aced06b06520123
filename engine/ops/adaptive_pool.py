"""adaptive_avg_pool2d (PyTorch's AdaptiveAvgPool2DBackward0) and its backward, both registered ops.

Output cell i along a dim of size n averages input rows floor(i n / m) .. ceil((i + 1) n / m) - 1
(m output cells), PyTorch's bins, which may overlap when m does not divide n. That is a linear map
per dim: out = P_h @ x @ P_w^T with P[i, r] = 1 / (bin size) for r in bin i, so the backward is
the transposed map, grad_x = P_h^T @ grad @ P_w, and the backward's own vjp is the forward again.
"""
from __future__ import annotations

import numpy as np

from engine.ops.registry import NN, OpDef, Spec, register


def _bins_matrix(size: int, cells: int, dtype) -> np.ndarray:
    """(cells, size) averaging matrix of PyTorch's adaptive pooling bins."""
    matrix = np.zeros((cells, size), dtype=dtype)
    for i in range(cells):
        start, end = (i * size) // cells, -((-(i + 1) * size) // cells)    # floor and ceil
        matrix[i, start:end] = 1.0 / (end - start)
    return matrix


def _pool_matrices(h: int, w: int, out_h: int, out_w: int, dtype):
    return _bins_matrix(h, out_h, dtype), _bins_matrix(w, out_w, dtype)


def _check(shape, output_size):
    """PyTorch's checks (adaptive_avg_pool2d's C++ ones), in its words."""
    if len(shape) not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {list(shape)}")
    for d in (len(shape) - 2, len(shape) - 1):
        if shape[d] == 0:
            raise RuntimeError("adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {list(shape)} with dimension {d} being empty")
    if len(output_size) != 2:
        raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
    if min(output_size) < 0:
        raise RuntimeError("adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 "
                           f"but received {{{output_size[0]}, {output_size[1]}}}")


def _pool_forward(x, output_size):
    _check(x.shape, output_size)
    p_h, p_w = _pool_matrices(*x.shape[-2:], *output_size, x.dtype)
    return np.matmul(np.matmul(p_h, x), p_w.T)


def _unpool_forward(g, input_shape):
    p_h, p_w = _pool_matrices(*input_shape[-2:], *g.shape[-2:], g.dtype)
    return np.ascontiguousarray(np.matmul(np.matmul(p_h.T, g), p_w))


register(OpDef(
    "adaptive_avg_pool2d", NN, _pool_forward,
    lambda x, output_size: Spec(tuple(x.shape[:-2]) + tuple(output_size), x.dtype),
    lambda F, g, x, out, output_size: (F.adaptive_avg_pool2d_backward(g, input_shape=tuple(x.shape)),),
    "AdaptiveAvgPool2DBackward0", "mean of x over each output cell's bin of rows and columns",
    "grad_x = each cell's grad spread evenly over its bin (summed where bins overlap)",
    attrs=("output_size",), saves=()))

register(OpDef(
    "adaptive_avg_pool2d_backward", NN, _unpool_forward,
    lambda g, input_shape: Spec(tuple(input_shape), g.dtype),
    lambda F, gg, g, out, input_shape: (F.adaptive_avg_pool2d(gg, output_size=tuple(g.shape[-2:])),),
    "AdaptiveAvgPool2DBackwardBackward0", "each output cell's value spread evenly over its bin",
    "grad_g = adaptive_avg_pool2d(grad)", attrs=("input_shape",), saves=()))
