# title: Memory planning: buffers reused along the schedule
# title_zh: 内存规划：沿着执行顺序复用缓冲区
# concept: memory planning, liveness, buffer reuse
# Each intermediate dies after its last use, so a later value can move into its buffer.
# The Memory tab draws every buffer's lifetime and the peak bytes before and after planning.
import torch


def mlp(x, w1, w2, w3):
    h1 = torch.relu(x @ w1)       # a 256x256 intermediate
    h2 = torch.relu(h1 @ w2)      # h1 is dead after this line...
    h3 = torch.relu(h2 @ w3)      # ...so h2 @ w3 can reuse h1's buffer
    return h3.sum()               # h3 is summed as it is computed: never stored


compiled = torch.compile(mlp)
x = torch.randn(256, 256)
w1, w2, w3 = torch.randn(256, 256), torch.randn(256, 256), torch.randn(256, 256)
print(compiled(x, w1, w2, w3))
