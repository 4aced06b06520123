"""The models a course exports to ONNX (issue 19), built with Dagscope's torch facade: an MLP, a CNN
with BatchNorm (its running statistics moved by one training step), a transformer block, an RNN cell
from Linear + tanh, nanoGPT's model.py (bench/models/nanogpt.py) in a tiny configuration, and a model
of the exporter's other builders. `build()` returns {name: (model in eval mode, example inputs, eager outputs as numpy arrays)}."""
from __future__ import annotations

import io
import sys
import types
from pathlib import Path

import numpy as np

from engine import compat

ROOT = Path(__file__).resolve().parents[3]
NANOGPT = (ROOT / "bench" / "models" / "nanogpt.py").read_text().split("# --- bench: setup ---")[0]

PROGRAM = '''
import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(0)

class TransformerBlock(nn.Module):
    def __init__(self, d=16, heads=2):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d), nn.Dropout(0.1))

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(C, dim=2)
        q, k, v = (t.view(B, T, self.heads, C // self.heads).transpose(1, 2) for t in (q, k, v))
        att = torch.softmax((q @ k.transpose(-2, -1)) * (1.0 / (C // self.heads) ** 0.5), dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        x = x + self.proj(y)
        return x + self.mlp(self.ln2(x))

class Cell(nn.Module):
    """An RNN cell without nn.RNN: h' = tanh(W_x x + W_h h)."""
    def __init__(self):
        super().__init__()
        self.i2h, self.h2h = nn.Linear(4, 8), nn.Linear(8, 8)

    def forward(self, x, h):
        return torch.tanh(self.i2h(x) + self.h2h(h))

class Zoo(nn.Module):
    """The exporter's other builders in one model: Embedding, cat, permute, pad, reductions, where,
    masked_fill, clamp, the activations, stack, flatten, two outputs."""
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 6)
        self.fc = nn.Linear(6, 6)
        self.register_buffer("mask", torch.ones(6, 7).tril())

    def forward(self, idx, x):
        h = torch.cat([self.emb(idx), x], dim=1).permute(0, 2, 1).unsqueeze(1)
        h = F.pad(h, (1, 1)).squeeze(1)
        m = h.mean(dim=-1, keepdim=True) + h.sum(dim=1, keepdim=True) - h.amax(dim=(1, 2), keepdim=True)
        h = (torch.where(h > 0, h, h * 0.1) + m).masked_fill(self.mask == 0, -1.0)
        h = self.fc(torch.clamp(h, -2, 2).transpose(1, 2))
        h = F.silu(h) * torch.sigmoid(h) / 2 + F.leaky_relu(h) - F.elu(h) + torch.exp(-h.abs()).sqrt()
        return torch.stack([h[:, 0], h[:, -1]], dim=1).flatten(1), F.softplus(h).sum(-1)

cnn = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                    nn.Conv2d(4, 4, 3), nn.AvgPool2d(2), nn.Flatten(), nn.Linear(4, 3), nn.Softmax(dim=1))
cnn(torch.randn(4, 1, 8, 8))          # one training-mode call: BatchNorm's running statistics move
gpt = GPT(GPTConfig(block_size=16, vocab_size=32, n_layer=2, n_head=2, n_embd=16, dropout=0.0, bias=True))
MODELS = {
    "mlp": (nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4), nn.LogSoftmax(dim=1)), (torch.randn(3, 8),)),
    "cnn_batchnorm": (cnn, (torch.randn(2, 1, 8, 8),)),
    "transformer_block": (TransformerBlock(), (torch.randn(2, 5, 16),)),
    "rnn_cell": (Cell(), (torch.randn(3, 4), torch.randn(3, 8))),
    "nanogpt_tiny": (gpt, (torch.randint(0, 32, (2, 8)),)),
    "ops_zoo": (Zoo(), (torch.randint(0, 10, (2, 3)), torch.randn(2, 2, 6))),
}
'''


def program() -> str:
    return NANOGPT + PROGRAM


def build() -> dict:
    module = types.ModuleType("onnx_models_program")       # a module: nanoGPT's dataclass looks itself up
    sys.modules[module.__name__] = module
    ns = module.__dict__
    ns["print"] = lambda *a, **k: None                      # (nanoGPT prints its size)
    with compat.installed():
        exec(compile(program(), "onnx_models", "exec"), ns)
        torch = ns["torch"]
        built = {}
        for name, (model, inputs) in ns["MODELS"].items():
            model.eval()
            with torch.no_grad():
                out = model(*inputs)
            outs = [o for o in (out if isinstance(out, tuple) else (out,)) if o is not None]   # nanoGPT: (logits, None)
            built[name] = (model, inputs, [np.array(o.numpy()) for o in outs])
    return built


DYNAMIC = {"mlp": (5, 8), "cnn_batchnorm": (5, 1, 8, 8)}     # exported with a dynamic batch, run at batch 5


def dynamic_input(shape) -> np.ndarray:
    """The batch-of-5 input the dynamic-batch goldens were run on (here, not in the recording script,
    which imports onnxruntime: the tests read it without)."""
    return np.random.default_rng(0).standard_normal(shape).astype(np.float32)


def export_bytes(model, inputs, **options) -> bytes:
    with compat.installed():
        import torch        # Dagscope's facade, while installed
        buf = io.BytesIO()
        torch.onnx.export(model, inputs, buf, **options)
    return buf.getvalue()
