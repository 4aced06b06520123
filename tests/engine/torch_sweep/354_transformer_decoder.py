# nn.TransformerDecoderLayer, nn.TransformerDecoder and nn.Transformer: seeded construction (the Transformer
# re-initializes every matrix with xavier_uniform_), reprs, outputs with causal and padding masks, batch_first and
# norm_first, gradients, a few training steps, and generate_square_subsequent_mask.
import torch
import torch.nn as nn
torch.manual_seed(0)
layer = nn.TransformerDecoderLayer(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0)
print(layer)
tgt, memory = torch.randn(5, 2, 8), torch.randn(6, 2, 8)
mask = nn.Transformer.generate_square_subsequent_mask(5)
print(mask)
out = layer(tgt, memory, tgt_mask=mask)
print(out.shape, out[0, 0], out.grad_fn.name())
dec = nn.TransformerDecoder(layer, num_layers=2, norm=nn.LayerNorm(8))
pad = torch.tensor([[False] * 5 + [True], [False] * 6])
y = dec(tgt, memory, tgt_mask=mask, memory_key_padding_mask=pad)
print(y[4, 1], [n for n, _ in dec.named_parameters()][:6])
nf = nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, batch_first=True, norm_first=True, activation="gelu")
print(nf(tgt.transpose(0, 1), memory.transpose(0, 1))[1, 2])
model = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=1, dim_feedforward=16,
                       dropout=0.0, batch_first=True)
print(model)
print(sum(p.numel() for p in model.parameters()), model.encoder.layers[0].linear1.weight[0, :4],
      model.decoder.layers[0].multihead_attn.in_proj_weight[3, :4], model.encoder.layers[1].norm1.bias[:3])
src, tg = torch.randn(2, 7, 8), torch.randn(2, 4, 8)
o = model(src, tg, tgt_mask=model.generate_square_subsequent_mask(4))
print(o.shape, o[1, 3])
opt = torch.optim.Adam(model.parameters(), lr=0.01)
target = torch.randn(2, 4, 8)
for step in range(3):
    loss = ((model(src, tg, tgt_mask=nn.Transformer.generate_square_subsequent_mask(4)) - target) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 5))
print(model.decoder.layers[0].linear2.weight.grad.norm() > 0)
try:
    model(torch.randn(2, 7, 8), torch.randn(3, 4, 8))
except RuntimeError as e:
    print(e)
