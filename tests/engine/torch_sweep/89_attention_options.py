# MultiheadAttention options (weights per head, no weights, padding and causal masks, batch_first, unbatched)
# and TransformerEncoder(Layer) variants in eval mode, on fixed weights; attention's wrong embedding size.
import torch
import torch.nn as nn
import torch.nn.functional as F

def attempt(label, fn):
    try:
        print(label, fn())
    except Exception as exc:
        print(label, "ERROR", type(exc).__name__, exc)

def fill(m):
    with torch.no_grad():
        for i, p in enumerate(m.parameters()):
            p.copy_(torch.sin(torch.arange(p.numel(), dtype=torch.float32) * 0.7 + i).reshape(p.shape) * 0.4)
    return m

x = torch.cos(torch.arange(24.0)).reshape(3, 2, 4)    # (L, N, E)
mha = fill(nn.MultiheadAttention(4, 2)).eval()
attempt("mha", lambda: mha(x, x, x))
attempt("mha avg false", lambda: mha(x, x, x, average_attn_weights=False)[1].shape)
attempt("mha no weights", lambda: mha(x, x, x, need_weights=False))
attempt("mha kpm", lambda: mha(x, x, x, key_padding_mask=torch.tensor([[False, False, True], [False, True, True]]))[0])
attempt("mha causal", lambda: mha(x, x, x, attn_mask=torch.triu(torch.ones(3, 3, dtype=torch.bool), 1))[1])
attempt("mha float mask", lambda: mha(x, x, x, attn_mask=torch.tensor([[0., -1., 0.], [0., 0., -2.], [1., 0., 0.]]))[1])
bf = fill(nn.MultiheadAttention(4, 1, batch_first=True, bias=False)).eval()
attempt("mha bf", lambda: bf(x.transpose(0, 1), x.transpose(0, 1), x.transpose(0, 1))[0].shape)
attempt("mha unbatched", lambda: mha(x[:, 0], x[:, 0], x[:, 0])[1].shape)
attempt("mha wrong E", lambda: mha(torch.ones(3, 2, 5), torch.ones(3, 2, 5), torch.ones(3, 2, 5)))
enc = fill(nn.TransformerEncoderLayer(4, 2, dim_feedforward=8, dropout=0.0)).eval()
attempt("enc", lambda: enc(x).detach())   # (its grad_fn: sweep 85)
attempt("enc repr", lambda: enc)
enc2 = fill(nn.TransformerEncoderLayer(4, 2, dim_feedforward=8, dropout=0.0, activation="gelu", norm_first=True, batch_first=True)).eval()
attempt("enc2", lambda: enc2(x).detach())
attempt("enc mask", lambda: enc(x, src_key_padding_mask=torch.tensor([[False, False, True], [False, False, False]])).detach())
stack = fill(nn.TransformerEncoder(nn.TransformerEncoderLayer(4, 2, 8, 0.0), num_layers=2, enable_nested_tensor=False)).eval()
attempt("stack", lambda: stack(x).detach())

attempt("sdpa causal", lambda: F.scaled_dot_product_attention(x, x, x, is_causal=True))
attempt("sdpa scale", lambda: F.scaled_dot_product_attention(x, x, x, scale=0.1))
