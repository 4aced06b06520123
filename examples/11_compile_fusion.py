# title: torch.compile fuses elementwise chains into one kernel
# title_zh: torch.compile 把逐元素运算链融合成一个内核
# concept: compilation, operator fusion, passes, kernels
# Open Passes to see each rewrite and why, Kernels for the generated C, and the eager vs compiled timing.
import torch


def gelu_ish(x, w):
    half = torch.tensor(2.0) * 0.25     # constant folding: computed once, at compile time
    y = torch.tanh(x * w + 1.0)
    unused = y * 3.0                    # dead code: nothing reads it, so DCE removes it
    a = y * half
    b = y * half                        # CSE: the same computation as `a`, computed once
    keep = 0.0 * y                      # NOT folded to 0: if y were inf or NaN, 0 * y is NaN
    return (a + b * 1.0) * 0.5 + keep   # algebraic simplification: b * 1.0 is just b


compiled = torch.compile(gelu_ish)
x = torch.randn(1024, 256)
w = torch.randn(1024, 256)
out = compiled(x, w)
print(torch.allclose(out, gelu_ish(x, w), atol=1e-5))  # True
