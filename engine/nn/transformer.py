"""Attention: F.scaled_dot_product_attention, nn.MultiheadAttention, nn.TransformerEncoder(Layer),
nn.TransformerDecoder(Layer) and nn.Transformer, composed of registered ops (every projection, score, softmax and weighted sum
is a node of the recorded graph). Parameter names, initialization, masks and layouts follow PyTorch."""
from __future__ import annotations

import copy
import math

import numpy as np

from engine import functional as F
from engine.errors import UnsupportedError
from engine.nn import init
from engine.nn.container import ModuleList
from engine.nn.layers import Dropout, Linear
from engine.nn.module import Module
from engine.nn.normalization import LayerNorm
from engine.nn.parameter import Parameter
from engine.tensor import Tensor

_NEG_INF = float("-inf")


def _additive_mask(mask, keep_where_true: bool, dtype) -> Tensor:
    """A mask as something to add to the scores: bool masks become 0 / -inf, float masks stay."""
    if mask.array.dtype == np.bool_:
        blocked = mask.array if not keep_where_true else ~mask.array
        return Tensor(np.where(blocked, _NEG_INF, 0.0).astype(dtype))
    return mask


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p: float = 0.0, is_causal: bool = False,
                                 scale=None, enable_gqa: bool = False):
    """softmax(q @ k^T * scale + mask) @ v. A bool attn_mask marks the positions that take part (True)."""
    L, S = query.array.shape[-2], key.array.shape[-2]
    scale = 1.0 / math.sqrt(query.array.shape[-1]) if scale is None else scale
    scores = F.mul(F.matmul(query, F.transpose(key, -2, -1)), scale)
    if is_causal:
        scores = F.add(scores, _additive_mask(Tensor(np.tril(np.ones((L, S), dtype=bool))), True, scores.array.dtype))
    if attn_mask is not None:
        scores = F.add(scores, _additive_mask(attn_mask, True, scores.array.dtype))
    weights = F.softmax(scores, dim=-1)
    if dropout_p > 0.0:
        weights = F.dropout(weights, dropout_p, True)
    return F.matmul(weights, value)


class NonDynamicallyQuantizableLinear(Linear):
    """The out_proj of MultiheadAttention (PyTorch's class name, so the repr matches)."""


class MultiheadAttention(Module):
    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False, kdim=None, vdim=None,
                 batch_first: bool = False, device=None, dtype=None):
        super().__init__()
        if add_bias_kv or add_zero_attn or (kdim not in (None, embed_dim)) or (vdim not in (None, embed_dim)):
            raise UnsupportedError("MultiheadAttention(add_bias_kv, add_zero_attn, kdim, vdim) is not supported by "
                                   "Dagscope; query, key and value must share embed_dim.")
        if embed_dim % num_heads:
            raise AssertionError("embed_dim must be divisible by num_heads")
        self.embed_dim, self.num_heads, self.dropout = embed_dim, num_heads, dropout
        self.batch_first, self.head_dim = batch_first, embed_dim // num_heads
        self.kdim = self.vdim = embed_dim
        self._qkv_same_embed_dim = True
        self.in_proj_weight = Parameter(np.zeros((3 * embed_dim, embed_dim), np.float32))
        if bias:
            self.in_proj_bias = Parameter(np.zeros(3 * embed_dim, np.float32))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias)
        init.xavier_uniform_(self.in_proj_weight)
        if bias:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)

    def forward(self, query, key, value, key_padding_mask=None, need_weights: bool = True, attn_mask=None,
                average_attn_weights: bool = True, is_causal: bool = False):
        unbatched = query.ndim == 2
        if unbatched:
            query, key, value = (F.unsqueeze(t, 1) for t in (query, key, value))
            if key_padding_mask is not None:
                key_padding_mask = F.unsqueeze(key_padding_mask, 0)
        elif self.batch_first:
            query, key, value = (F.transpose(t, 0, 1) for t in (query, key, value))
        L, N, E = query.array.shape
        if E != self.embed_dim:       # PyTorch's multi_head_attention_forward asserts this
            raise AssertionError(f"was expecting embedding dimension of {self.embed_dim}, but got {E}")
        S, H, hd = key.array.shape[0], self.num_heads, self.head_dim
        w_q, w_k, w_v = F.chunk(self.in_proj_weight, 3, 0)
        b_q, b_k, b_v = F.chunk(self.in_proj_bias, 3, 0) if self.in_proj_bias is not None else (None,) * 3

        def heads(x, w, b, length):       # (length, N, E) -> (N*H, length, hd)
            return F.transpose(F.reshape(F.linear(x, w, b), (length, N * H, hd)), 0, 1)
        q, k, v = heads(query, w_q, b_q, L), heads(key, w_k, b_k, S), heads(value, w_v, b_v, S)
        scores = F.matmul(F.mul(q, 1.0 / math.sqrt(hd)), F.transpose(k, 1, 2))       # (N*H, L, S)
        if is_causal and attn_mask is None:
            raise RuntimeError("Need attn_mask if specifying the is_causal hint.")
        if attn_mask is not None:
            mask = _additive_mask(attn_mask, False, scores.array.dtype)
            scores = F.add(scores, mask if mask.ndim == 2 else F.reshape(mask, (N * H, L, S)))
        if key_padding_mask is not None:
            pad = _additive_mask(key_padding_mask, False, scores.array.dtype)          # (N, S)
            scores = F.reshape(F.add(F.reshape(scores, (N, H, L, S)), F.reshape(pad, (N, 1, 1, S))), (N * H, L, S))
        weights = F.softmax(scores, dim=-1)
        if self.dropout > 0.0 and self.training:
            weights = F.dropout(weights, self.dropout, True)
        out = F.reshape(F.transpose(F.matmul(weights, v), 0, 1), (L * N, E))
        out = F.reshape(self.out_proj(out), (L, N, E))
        if unbatched:
            out = F.squeeze(out, 1)
        elif self.batch_first:
            out = F.transpose(out, 0, 1)
        if not need_weights:
            return out, None
        weights = F.reshape(weights, (N, H, L, S))
        if average_attn_weights:
            weights = F.mean(weights, dim=1)
        return out, (F.squeeze(weights, 0) if unbatched else weights)


class TransformerEncoderLayer(Module):
    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation="relu", layer_norm_eps: float = 1e-5, batch_first: bool = False, norm_first: bool = False,
                 bias: bool = True, device=None, dtype=None):
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.activation = _activation_function(activation)   # a Module (nn.GELU()) is registered and shown

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal: bool = False):
        x = src
        if self.norm_first:
            x = F.add(x, self._sa_block(self.norm1(x), src_mask, src_key_padding_mask))
            return F.add(x, self._ff_block(self.norm2(x)))
        x = self.norm1(F.add(x, self._sa_block(x, src_mask, src_key_padding_mask)))
        return self.norm2(F.add(x, self._ff_block(x)))

    def _sa_block(self, x, attn_mask, key_padding_mask):
        out = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False)[0]
        return self.dropout1(out)

    def _ff_block(self, x):
        return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))


class TransformerEncoder(Module):
    def __init__(self, encoder_layer: TransformerEncoderLayer, num_layers: int, norm=None,
                 enable_nested_tensor: bool = True, mask_check: bool = True):
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(encoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        out = src
        for layer in self.layers:
            out = layer(out, src_mask=mask, src_key_padding_mask=src_key_padding_mask)
        return self.norm(out) if self.norm is not None else out



def _activation_function(activation):
    """PyTorch's `activation` argument: "relu"/"gelu" become the functions; a callable or Module stays."""
    if activation in ("relu", F.relu):
        return F.relu
    if activation in ("gelu", F.gelu):
        return F.gelu
    if isinstance(activation, str):
        raise RuntimeError(f"activation should be relu/gelu, not {activation}")
    return activation


class TransformerDecoderLayer(Module):
    """Self-attention over tgt, attention over the encoder's memory, then the feed-forward block; each with its
    residual and LayerNorm (after it, or before it with norm_first), as PyTorch's."""

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation="relu", layer_norm_eps: float = 1e-5, batch_first: bool = False, norm_first: bool = False,
                 bias: bool = True, device=None, dtype=None):
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        self.activation = _activation_function(activation)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal: bool = False, memory_is_causal: bool = False):
        x = tgt
        if self.norm_first:
            x = F.add(x, self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal))
            x = F.add(x, self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask,
                                         memory_is_causal))
            return F.add(x, self._ff_block(self.norm3(x)))
        x = self.norm1(F.add(x, self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal)))
        x = self.norm2(F.add(x, self._mha_block(x, memory, memory_mask, memory_key_padding_mask, memory_is_causal)))
        return self.norm3(F.add(x, self._ff_block(x)))

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal):
        out = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                             is_causal=bool(is_causal) and attn_mask is not None, need_weights=False)[0]
        return self.dropout1(out)

    def _mha_block(self, x, mem, attn_mask, key_padding_mask, is_causal):
        out = self.multihead_attn(x, mem, mem, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                                  is_causal=bool(is_causal) and attn_mask is not None, need_weights=False)[0]
        return self.dropout2(out)

    def _ff_block(self, x):
        return self.dropout3(self.linear2(self.dropout(self.activation(self.linear1(x)))))


class TransformerDecoder(Module):
    def __init__(self, decoder_layer: TransformerDecoderLayer, num_layers: int, norm=None):
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(decoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal: bool = False):
        out = tgt
        for layer in self.layers:
            out = layer(out, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                        tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask,
                        tgt_is_causal=bool(tgt_is_causal), memory_is_causal=memory_is_causal)
        return self.norm(out) if self.norm is not None else out


class Transformer(Module):
    """The encoder-decoder of "Attention Is All You Need", as PyTorch builds it: every weight matrix is then
    re-initialized with xavier_uniform_ (in parameters() order), biases and norms keep their init."""

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6, num_decoder_layers: int = 6,
                 dim_feedforward: int = 2048, dropout: float = 0.1, activation="relu", custom_encoder=None,
                 custom_decoder=None, layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device=None, dtype=None):
        super().__init__()
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                                            batch_first, norm_first, bias)
            self.encoder = TransformerEncoder(layer, num_encoder_layers, LayerNorm(d_model, eps=layer_norm_eps,
                                                                                   bias=bias))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                                            batch_first, norm_first, bias)
            self.decoder = TransformerDecoder(layer, num_decoder_layers, LayerNorm(d_model, eps=layer_norm_eps,
                                                                                   bias=bias))
        for p in self.parameters():
            if p.ndim > 1:
                init.xavier_uniform_(p)
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None, src_key_padding_mask=None,
                tgt_key_padding_mask=None, memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                memory_is_causal: bool = False):
        batched = src.ndim == 3
        if not self.batch_first and batched and src.shape[1] != tgt.shape[1]:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if self.batch_first and batched and src.shape[0] != tgt.shape[0]:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask, is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask, tgt_is_causal=tgt_is_causal,
                            memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz: int, device=None, dtype=None) -> Tensor:
        """-inf above the diagonal, 0 on and below it (a float mask: position i attends to j <= i)."""
        return Tensor(np.triu(np.full((sz, sz), _NEG_INF, dtype=np.float32), k=1))
