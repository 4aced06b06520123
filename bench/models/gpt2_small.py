# bench: the definitions of nanogpt.py
# bench model: nanoGPT's model.py, unmodified (karpathy/nanoGPT, model.py, commit 3adf61e154c3fe3fca428ad6bc3818b27a3b8291:
# bench/models.py puts nanogpt.py's definitions above these lines), then GPT-2 small's configuration (12 layers,
# 12 heads, 768 wide, vocab 50257, block 1024; 124M parameters), one forward + backward at batch 1 x 32 tokens:
# issue 16's memory goal (bench/models.py --memory).
# --- bench: setup ---
torch.manual_seed(1337)
config = GPTConfig(block_size=1024, vocab_size=50257, n_layer=12, n_head=12, n_embd=768, dropout=0.0, bias=True)
model = GPT(config)
x = torch.randint(0, 50257, (1, 32))
y = torch.randint(0, 50257, (1, 32))
# --- bench: step ---
logits, loss = model(x, y)
loss.backward()
print(f"loss {loss.item():.4f}")
