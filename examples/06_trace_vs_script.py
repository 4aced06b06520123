# title: Trace vs script: the frozen branch
# title_zh: 追踪与脚本化：被冻结的分支
# concept: graph capture, tracing, scripting
# Tracing records the ops one example input ran, so it keeps only one side of the `if`.
# Scripting reads the source (AST) and keeps both sides as a cond node.
# The Static tab lists every call: the trace is stale on an input that takes the other branch.
import torch


def my_model(x):
    y = x * 2
    if x.sum() > 0:
        y = y + 1
    else:
        y = y - 1
    return y


traced = torch.jit.trace(my_model, torch.ones(3))   # warns: the branch depended on a tensor
scripted = torch.jit.script(my_model)

pos = torch.tensor([0.5, 1.0, 2.0])
print(traced(pos))    # the branch it was traced with: correct
print(scripted(pos))  # the same

neg = -torch.ones(3)
print(traced(neg))    # stale: still takes the "+ 1" branch
print(scripted(neg))  # correct: takes the "- 1" branch
