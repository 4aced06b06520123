"""Attention against numpy re-derivations of PyTorch's definitions: scaled_dot_product_attention
(causal and bool masks), MultiheadAttention (heads, masks, averaged weights), TransformerEncoderLayer;
gradients against finite differences (float64)."""
import math

import numpy as np
import pytest

from engine import creation, nn
from engine.nn.transformer import scaled_dot_product_attention
from engine.tensor import Tensor

RNG = np.random.default_rng(11)


def _softmax(a):
    e = np.exp(a - a.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def test_sdpa_matches_numpy_with_causal_and_bool_masks():
    q, k, v = (RNG.standard_normal((2, 4, 3)).astype(np.float32) for _ in range(3))
    ref = _softmax(q @ k.transpose(0, 2, 1) / math.sqrt(3)) @ v
    np.testing.assert_allclose(scaled_dot_product_attention(Tensor(q), Tensor(k), Tensor(v)).array, ref, rtol=1e-5)
    causal = np.triu(np.full((4, 4), -np.inf), 1)
    ref = _softmax(q @ k.transpose(0, 2, 1) / math.sqrt(3) + causal) @ v
    got = scaled_dot_product_attention(Tensor(q), Tensor(k), Tensor(v), is_causal=True)
    np.testing.assert_allclose(got.array, ref, rtol=1e-5, atol=1e-6)
    keep = Tensor(np.tril(np.ones((4, 4), dtype=bool)))           # True = takes part in attention
    got = scaled_dot_product_attention(Tensor(q), Tensor(k), Tensor(v), attn_mask=keep)
    np.testing.assert_allclose(got.array, ref, rtol=1e-5, atol=1e-6)


def _np_mha(mha, q, k, v, pad=None):
    """PyTorch's multi-head attention (batch_first=False layout), with a bool key padding mask."""
    W = mha.in_proj_weight.array.astype(np.float64)
    b = mha.in_proj_bias.array.astype(np.float64)
    E, H = mha.embed_dim, mha.num_heads
    hd = E // H
    L, N, _ = q.shape
    S = k.shape[0]
    proj = [x @ W[i * E:(i + 1) * E].T + b[i * E:(i + 1) * E] for i, x in enumerate((q, k, v))]
    qh, kh, vh = (p.reshape(p.shape[0], N * H, hd).transpose(1, 0, 2) for p in proj)
    scores = qh @ kh.transpose(0, 2, 1) / math.sqrt(hd)
    if pad is not None:
        scores = scores.reshape(N, H, L, S) + np.where(pad, -np.inf, 0.0)[:, None, None, :]
        scores = scores.reshape(N * H, L, S)
    w = _softmax(scores)
    out = (w @ vh).transpose(1, 0, 2).reshape(L * N, E)
    out = out @ mha.out_proj.weight.array.T.astype(np.float64) + mha.out_proj.bias.array
    return out.reshape(L, N, E), w.reshape(N, H, L, S).mean(1)


def test_multihead_attention_matches_numpy():
    creation.manual_seed(1)
    mha = nn.MultiheadAttention(6, 3)
    mha.in_proj_bias.array[...] = RNG.standard_normal(18)      # PyTorch starts them at 0; make them count
    q, k = RNG.standard_normal((4, 2, 6)).astype(np.float32), RNG.standard_normal((5, 2, 6)).astype(np.float32)
    v = RNG.standard_normal((5, 2, 6)).astype(np.float32)
    pad = np.array([[False] * 4 + [True], [False] * 5])
    out, w = mha(Tensor(q), Tensor(k), Tensor(v), key_padding_mask=Tensor(pad))
    ref_out, ref_w = _np_mha(mha, q, k, v, pad)
    np.testing.assert_allclose(out.array, ref_out, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(w.array, ref_w, rtol=1e-4, atol=1e-6)
    assert w.shape == (2, 4, 5) and not w.array[0, :, 4].any()


def test_batch_first_and_unbatched_layouts_agree():
    mha = nn.MultiheadAttention(4, 2, batch_first=True)
    x = creation.randn(2, 3, 4)
    out, _ = mha(x, x, x)
    single, _ = mha(x[0], x[0], x[0])
    np.testing.assert_allclose(out.array[0], single.array, rtol=1e-5, atol=1e-6)
    assert mha(x, x, x, need_weights=False)[1] is None
    wide = creation.randn(2, 3, 5)
    with pytest.raises(AssertionError, match="was expecting embedding dimension of 4, but got 5"):
        mha(wide, wide, wide)


def test_multihead_attention_gradcheck():
    mha = nn.MultiheadAttention(4, 2).double()
    x = RNG.standard_normal((3, 1, 4))
    weights = RNG.standard_normal((3, 1, 4))

    def loss():
        return float((mha(Tensor(x), Tensor(x), Tensor(x))[0] * Tensor(weights)).sum().array)
    (mha(Tensor(x), Tensor(x), Tensor(x))[0] * Tensor(weights)).sum().backward()
    target, grad = mha.in_proj_weight.array, mha.in_proj_weight.grad.array
    for idx in [(0, 0), (5, 2), (9, 3)]:
        old = target[idx]
        target[idx] = old + 1e-6
        up = loss()
        target[idx] = old - 1e-6
        down = loss()
        target[idx] = old
        assert grad[idx] == pytest.approx((up - down) / 2e-6, rel=1e-5, abs=1e-8)


def test_encoder_layer_post_norm_matches_numpy_in_eval():
    layer = nn.TransformerEncoderLayer(4, 2, dim_feedforward=8).eval()
    x = RNG.standard_normal((3, 2, 4)).astype(np.float32)
    got = layer(Tensor(x)).array

    def ln(a, m):
        return (a - a.mean(-1, keepdims=True)) / np.sqrt(a.var(-1, keepdims=True) + 1e-5) * m.weight.array + m.bias.array
    attn, _ = _np_mha(layer.self_attn, x, x, x)
    h = ln(x + attn, layer.norm1)
    ff = np.maximum(h @ layer.linear1.weight.array.T + layer.linear1.bias.array, 0)
    ff = ff @ layer.linear2.weight.array.T + layer.linear2.bias.array
    np.testing.assert_allclose(got, ln(h + ff, layer.norm2), rtol=1e-4, atol=1e-5)


def test_reprs_and_parameter_names():
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, dim_feedforward=16), num_layers=2)
    names = [n for n, _ in enc.named_parameters()]
    assert names[:4] == ["layers.0.self_attn.in_proj_weight", "layers.0.self_attn.in_proj_bias",
                         "layers.0.self_attn.out_proj.weight", "layers.0.self_attn.out_proj.bias"]
    assert repr(nn.MultiheadAttention(8, 2)) == (
        "MultiheadAttention(\n  (out_proj): NonDynamicallyQuantizableLinear(in_features=8, out_features=8, bias=True)\n)")
    assert "(0-1): 2 x TransformerEncoderLayer(" in repr(enc)
