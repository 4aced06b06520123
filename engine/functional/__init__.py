"""The functional forms of every op, named and called as torch.* / torch.nn.functional.* are.

Each takes and returns engine Tensors and runs registered ops through `engine.tensor.apply`, so
autograd, tracing and recording see every step. One file per family, as engine/ops is split:
elementwise, reduce, movement, index, linalg, nn and loss (each imports only `_common` and families earlier
in this list); this package re-exports them all under the names PyTorch uses.
"""
from engine.functional._common import _as_tensor, _c_type_name, _correction, _dim, _dims, _require_float, _type_word  # noqa: F401
from engine.functional.elementwise import (abs, add, ceil, clamp, clamp_max, clamp_min, clamp_op, clip, cos, div, nan_to_num,
                                           elu, eq, erf, exp, floor, floor_divide, ge, gelu, gt, hardsigmoid,
                                           hardswish, hardtanh, isfinite, isinf, isnan, isneginf, isposinf, le,
                                           leaky_relu, mish, relu6, softsign, tanhshrink, selu, celu, logsigmoid,
                                           log, lt, masked_fill, maximum, minimum, mul, ne, neg, pow, reciprocal,
                                           relu, remainder, fmod, round, sigmoid, silu, sin, softplus, sqrt, sub, tanh,
                                           where)
from engine.functional.reduce import (amax, amin, argmax, argmin, cumprod, cumsum, log_softmax, logsumexp, max, mean, min,
                                      norm, prod, softmax, std, std_mean, sum, var, var_mean)
from engine.functional.movement import (broadcast_to, cat, chunk, concat, concatenate, expand, flatten, flip, fliplr,
                                        flipud, narrow, permute, repeat_interleave, reshape, roll, split, squeeze,
                                        stack, transpose, unbind, unsqueeze)
from engine.functional.index import (argsort, cummax, cummin, gather, kthvalue, median, mode, getitem, index_put, index_put_, index_select, numpy_key,
                                     scatter, scatter_, scatter_add, scatter_add_, setitem, sort, topk, tril, triu)
from engine.functional.linalg import bmm, dot, einsum, ger, linear, matmul, mm, mv, outer
from engine.functional.nn import (avg_pool1d, avg_pool2d, batch_norm, conv1d, conv2d, conv_transpose1d, conv_transpose2d, dropout,
                                  embedding, group_norm, interpolate, layer_norm, max_pool1d, max_pool2d, normalize, one_hot, pad, upsample)
from engine.functional.loss import (binary_cross_entropy, binary_cross_entropy_with_logits, cross_entropy,
                                    huber_loss, l1_loss, mse_loss, nll_loss, smooth_l1_loss)

__all__ = [
    "add", "sub", "mul", "div", "neg", "pow", "exp", "log", "sqrt", "abs", "sin", "cos", "sigmoid", "tanh",
    "relu", "gelu", "einsum", "sort", "argsort", "topk", "tril", "triu", "normalize", "floor", "ceil", "round",
    "remainder", "fmod", "floor_divide", "batch_norm", "smooth_l1_loss", "huber_loss", "softplus", "silu", "leaky_relu",
    "erf", "maximum", "minimum", "clamp", "clip", "clamp_min", "clamp_max", "where", "nan_to_num", "masked_fill", "matmul",
    "mm", "bmm", "linear", "sum", "mean", "var", "std", "norm", "amax", "amin", "max", "min", "argmax",
    "argmin", "logsumexp", "softmax", "log_softmax", "reshape", "flatten", "squeeze", "unsqueeze", "transpose",
    "permute", "cat", "concat", "stack", "gather", "index_select", "narrow", "chunk", "split", "conv2d",
    "max_pool2d", "avg_pool2d", "max_pool1d", "avg_pool1d", "softsign", "tanhshrink", "dropout", "embedding", "one_hot", "layer_norm", "mse_loss", "l1_loss",
    "nll_loss", "cross_entropy", "binary_cross_entropy", "binary_cross_entropy_with_logits", "eq", "ne", "gt",
    "lt", "ge", "le", "isnan", "broadcast_to", "expand", "reciprocal",
    "cumsum", "prod", "unbind", "var_mean", "std_mean", "scatter", "scatter_add", "index_put",
    "conv1d", "conv_transpose1d", "conv_transpose2d", "pad", "interpolate", "upsample", "group_norm",
    "cumprod", "flip", "fliplr", "flipud", "roll", "repeat_interleave", "dot", "mv", "outer", "ger",
    "cummax", "cummin", "kthvalue", "median", "mode",
    "hardtanh", "relu6", "hardswish", "hardsigmoid", "elu", "selu", "celu", "logsigmoid", "mish", "isinf", "isposinf", "isneginf", "isfinite",
]
