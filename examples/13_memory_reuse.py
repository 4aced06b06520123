# title: Memory planning: buffers reused along the schedule
# title_zh: 内存规划：沿着执行顺序复用缓冲区
# concept: memory planning, liveness, buffer reuse
# Each intermediate dies after its last use, so a later value can take over its buffer.
# The Memory tab draws every buffer's lifetime and the peak bytes before and after planning.
import torch


def block(x):
    a = torch.relu(x @ x.T)        # 512x512 intermediate
    b = a * 2.0
    c = torch.tanh(b)              # a is dead here: c can reuse a's buffer
    d = c + 1.0                    # and d can reuse b's
    return d.sum()


compiled = torch.compile(block)
x = torch.randn(512, 64)
print(compiled(x))
