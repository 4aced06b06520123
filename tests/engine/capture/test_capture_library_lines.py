"""Nodes captured inside library code (a scripted nn.GELU, torch.jit.script(F.gelu), a library
module inside a user's scripted module) carry the user's line that called it, never a line of the
library's own file (the page would light a wrong line of the editor)."""
import sys

import pytest

CODE = """import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.act = nn.GELU()

    def forward(self, x):
        h = self.fc(x)
        return self.act(h) + x


x = torch.randn(4)
scripted_gelu = torch.jit.script(nn.GELU())
y = scripted_gelu(x)
scripted_fn = torch.jit.script(F.gelu)
z = scripted_fn(x)
block = torch.jit.script(Block())
w = block(x)
compiled = torch.compile(nn.GELU())
q = compiled(x)
"""


def op_lines(graph):
    return {(n["op"], n["line"]) for n in graph["forward"]["nodes"] if n["op"] not in ("placeholder", "output")}


def by_title(record, title):
    return next(g for g in record["graphs"] if g["title"] == title)


def test_library_code_captured_carries_the_users_calling_line(run):
    rec = run(CODE)
    assert rec["ok"], rec["error"]
    assert op_lines(by_title(rec, "scripted GELU")) == {("gelu", 18)}             # torch.jit.script(nn.GELU())
    assert op_lines(by_title(rec, "scripted GELU (f32[4])")) == {("gelu", 19)}    # its first call
    assert op_lines(by_title(rec, "scripted gelu")) == {("gelu", 20)}             # F.gelu's own body: not its file's line
    assert op_lines(by_title(rec, "scripted gelu (f32[4], 'none')")) == {("gelu", 21)}
    assert op_lines(by_title(rec, "compiled GELU")) == {("gelu", 25)}


def test_a_user_module_keeps_its_own_lines_around_library_calls(run):
    rec = run(CODE)
    lines = op_lines(by_title(rec, "scripted Block (f32[4])"))
    # self.fc(x) at 13 (a 1-D x is viewed as a row around addmm, as PyTorch does), self.act(h) + x at 14
    assert {("reshape", 13), ("addmm", 13), ("gelu", 14), ("add", 14)} <= lines
    assert all(line in (13, 14) for _, line in lines)


def test_an_unsupported_construct_in_library_code_is_reported_at_the_users_line(run, tmp_path, monkeypatch):
    (tmp_path / "somelib.py").write_text("import torch\n\n\ndef f(x):\n    try:\n        return x * 2\n"
                                         "    finally:\n        pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        rec = run("import torch\nimport somelib\n\n\n\ns = torch.jit.script(somelib.f)\n")
    finally:
        sys.modules.pop("somelib", None)
    assert not rec["ok"] and rec["error"]["line"] == 6
    assert rec["error"]["message"].startswith("line 6: `Try` statements are not supported")   # not somelib's line 5


@pytest.mark.torch
def test_a_1d_input_to_linear_is_viewed_as_a_row_around_addmm_in_pytorch(real_torch):
    """The reshape-addmm-reshape the test above expects of self.fc(x) is PyTorch's own decomposition."""
    from torch.fx.experimental.proxy_tensor import make_fx
    fc = real_torch.nn.Linear(4, 4)
    graph = make_fx(lambda x: fc(x))(real_torch.randn(4)).graph
    ops = [node.target.__name__.split(".")[0] for node in graph.nodes if node.op == "call_function"]
    assert ops == ["view", "t", "addmm", "view"]
