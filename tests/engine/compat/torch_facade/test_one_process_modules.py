"""The modules real programs import at the top for what they do only on request or on many GPUs
(word_language_model's `import torch.onnx`, nanoGPT's DistributedDataParallel, init_process_group and
GradScaler): they import, and say truthfully what a run — one CPU process — can do with them. What is
stored as PyTorch 2.13's is run through real torch where it is installed (the tests marked torch)."""
import contextlib
import io
import sys
import warnings

import pytest

# PyTorch 2.13's words for a collective or DDP without a process group
NO_GROUP = "Default process group has not been initialized, please make sure to call init_process_group."
DIST_CALLS = ("dist.get_rank()", "dist.get_world_size()", "dist.all_reduce(torch.ones(2))", "dist.barrier()")
GRAD_SCALER = ("import torch\n"
               "model = torch.nn.Linear(2, 1)\n"
               "opt = torch.optim.SGD(model.parameters(), lr=0.5)\n"
               "scaler = torch.cuda.amp.GradScaler(enabled=True)\n"
               "loss = model(torch.ones(1, 2)).sum()\n"
               "scaler.scale(loss).backward()\n"
               "before = model.bias.item()\n"
               "scaler.unscale_(opt)\n"
               "scaler.step(opt)\n"
               "scaler.update()\n"
               "print(scaler.is_enabled(), scaler.get_scale(), round(before - model.bias.item(), 6))\n"
               "print(torch.amp.GradScaler('cuda', enabled=False).is_enabled())\n")
# what PyTorch 2.13 printed for it, and the UserWarning it gave (beside a FutureWarning)
PYTORCH_GRAD_SCALER = "False 1.0 0.5\nFalse\n"     # the step ran, unscaled (bias grad 1, lr 0.5)
GRAD_SCALER_DISABLED = "torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling."
BACKENDS = ("import torch\ntorch.backends.cuda.matmul.allow_tf32 = True\n"
            "torch.backends.cudnn.allow_tf32 = True\n"
            "print(torch.bfloat16, torch.cuda.is_bf16_supported(), torch.bfloat16 == torch.float16)\n")
PYTORCH_BACKENDS = "torch.bfloat16 False False\n"
MODULE_PATHS = ["torch.nn.modules.linear.Linear", "torch.nn.modules.rnn.LSTM", "torch.nn.modules.sparse.Embedding",
                "torch.nn.modules.dropout.Dropout", "torch.nn.modules.activation.MultiheadAttention",
                "torch.nn.modules.Linear", "torch.nn.modules.transformer.TransformerEncoderLayer",
                "torch.nn.modules.container.ModuleList"]
# the model's class in a module of its own, as word_language_model's `model` (pickle finds it by name)
SAVED_NET = ("import io, sys, types, torch\n"
             "sys.modules['helper'] = helper = types.ModuleType('helper')\n"
             "exec('import torch\\nclass Net(torch.nn.Module):\\n    def __init__(self):\\n'\n"
             "     '        super().__init__()\\n        self.rnn = torch.nn.LSTM(2, 3)\\n', helper.__dict__)\n"
             "Net = helper.Net\n"
             "buffer = io.BytesIO()\n"
             "torch.save(Net(), buffer)\n"
             "buffer.seek(0)\n"
             "{load}\n")
SAFE_LOAD = ("with torch.serialization.safe_globals([Net, torch.nn.modules.rnn.LSTM]):\n"
             "    net = torch.load(buffer)\n"
             "    print(Net in torch.serialization.get_safe_globals())\n"
             "net.rnn.flatten_parameters()\n"
             "print(type(net).__name__, net.rnn, Net in torch.serialization.get_safe_globals())")
PYTORCH_SAFE_LOAD = "True\nNet LSTM(2, 3) False\n"


def _out(run, code):
    record = run(code)
    assert record["error"] is None, record["error"]
    return record["stdout"]


def _error(run, code):
    record = run(code)
    assert record["error"] is not None, record["stdout"]
    return record["error"]


def test_torch_onnx_imports_and_exports(run):
    assert _out(run, "import torch.onnx\nprint(torch.onnx.is_in_onnx_export())\n") == "False\n"
    # (into a BytesIO: the in-process run's folder is the test's; tests/engine/onnx_io tests the export itself)
    assert _out(run, "import io, onnx, torch\nbuf = io.BytesIO()\n"
                     "torch.onnx.export(torch.nn.Linear(2, 2), torch.ones(1, 2), buf)\n"
                     "print([n.op_type for n in onnx.load_from_string(buf.getvalue()).graph.node])\n") == "['Gemm']\n"


def test_torch_distributed_is_one_process_without_a_group(run):
    assert _out(run, "import torch.distributed as dist\n"
                     "print(dist.is_available(), dist.is_initialized(), dist.is_nccl_available())\n") == \
        "False False False\n"
    error = _error(run, "from torch.distributed import init_process_group\ninit_process_group(backend='nccl')\n")
    assert error["kind"] == "unsupported" and "out of scope" in error["message"]
    assert "init_process_group" in error["message"]
    for call in DIST_CALLS:
        error = _error(run, f"import torch\nimport torch.distributed as dist\n{call}\n")
        assert (error["type"], error["message"]) == ("ValueError", NO_GROUP), call


def test_distributed_data_parallel_imports_and_needs_a_group(run):
    error = _error(run, "import torch\nfrom torch.nn.parallel import DistributedDataParallel as DDP\n"
                        "print(issubclass(DDP, torch.nn.Module))\nDDP(torch.nn.Linear(2, 2), device_ids=[0])\n")
    assert (error["type"], error["message"]) == ("ValueError", NO_GROUP)
    assert _out(run, "import torch\nfrom torch.nn.parallel import DistributedDataParallel as DDP\n"
                     "print(issubclass(DDP, torch.nn.Module))\n") == "True\n"
    error = _error(run, "import torch.nn.parallel\ntorch.nn.parallel.DataParallel\n")
    assert error["kind"] == "unsupported" and "out of scope" in error["message"]


def test_grad_scaler_disables_itself_without_cuda(run):
    record = run(GRAD_SCALER)
    assert record["error"] is None, record["error"]
    assert record["stdout"] == PYTORCH_GRAD_SCALER
    assert GRAD_SCALER_DISABLED in record["stderr"]
    assert "FutureWarning" in record["stderr"]
    error = _error(run, "import torch\ntorch.amp.GradScaler('cpu')\n")
    assert error["kind"] == "unsupported" and "mixed precision" in error["message"]
    error = _error(run, "import torch\ntorch.cuda.amp.autocast()\n")
    assert error["kind"] == "unsupported" and "torch.cuda.amp.autocast" in error["message"]


def test_backends_flags_and_bfloat16_name(run):
    assert _out(run, BACKENDS) == PYTORCH_BACKENDS
    error = _error(run, "import torch\ntorch.ones(2, dtype=torch.bfloat16)\n")
    assert error["kind"] == "unsupported" and "bfloat16" in error["message"]


@pytest.mark.parametrize("path", MODULE_PATHS)
def test_torch_nn_modules_paths_name_the_same_classes(run, path):
    name = path.rsplit(".", 1)[1]
    assert _out(run, f"import torch\nprint({path} is torch.nn.{name})\n") == "True\n"


def test_safe_globals_let_a_weights_only_load_rebuild_a_model(run):
    code = SAVED_NET
    error = _error(run, code.format(load="torch.load(buffer)"))
    assert "Weights only load failed" in error["message"] and "Net" in error["message"]
    assert _out(run, code.format(load=SAFE_LOAD)) == PYTORCH_SAFE_LOAD


# ---- the stored words and printouts are real PyTorch's (skipped where torch is absent) ------------------

def _printed_by_real_torch(code):
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(code, {"__name__": "__main__"})
    return printed.getvalue()


@pytest.mark.torch
def test_the_stored_words_and_printouts_are_real_pytorchs(real_torch):
    import torch.distributed as dist
    for call in DIST_CALLS:
        with pytest.raises(ValueError) as refused:
            eval(call, {"torch": real_torch, "dist": dist})
        assert str(refused.value) == NO_GROUP, call
    from torch.nn.parallel import DistributedDataParallel
    with pytest.raises(ValueError) as refused:
        DistributedDataParallel(real_torch.nn.Linear(2, 2), device_ids=[0])
    assert str(refused.value) == NO_GROUP
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert _printed_by_real_torch(GRAD_SCALER) == PYTORCH_GRAD_SCALER
    assert GRAD_SCALER_DISABLED in [str(w.message) for w in caught if w.category is UserWarning]
    assert FutureWarning in [w.category for w in caught]
    assert _printed_by_real_torch(BACKENDS) == PYTORCH_BACKENDS
    for path in MODULE_PATHS:
        assert eval(f"{path} is torch.nn.{path.rsplit('.', 1)[1]}", {"torch": real_torch}), path
    try:
        with pytest.raises(Exception, match="Weights only load failed"):
            exec(SAVED_NET.format(load="torch.load(buffer)"), {})
        assert _printed_by_real_torch(SAVED_NET.format(load=SAFE_LOAD)) == PYTORCH_SAFE_LOAD
    finally:
        sys.modules.pop("helper", None)
