"""Writes torch_files/: small files saved by real PyTorch's torch.save, and what each holds
(expected.json), so that test_torch_save_format.py checks Dagscope's torch.load reads PyTorch's
format without PyTorch installed. Run with the oracle installed:
    .venv/bin/python tests/engine/compat/torch_facade/record_torch_files.py"""
import json
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent / "torch_files"


def described(value):
    """What the test compares: tensors as dtype, shape, values, and whether a Parameter."""
    if isinstance(value, torch.Tensor):
        return {"tensor": str(value.dtype).removeprefix("torch."), "shape": list(value.shape),
                "values": value.detach().reshape(-1).tolist(), "parameter": isinstance(value, torch.nn.Parameter),
                "requires_grad": value.requires_grad}
    if isinstance(value, dict):
        return {"dict": [[k, described(v)] for k, v in value.items()]}
    if isinstance(value, (list, tuple)) and not isinstance(value, torch.Size):
        return {type(value).__name__: [described(v) for v in value]}
    if isinstance(value, torch.Size):
        return {"size": list(value)}
    if isinstance(value, (torch.dtype, torch.device)):
        return {type(value).__name__: str(value)}
    if isinstance(value, bytes):
        return {"bytes": list(value)}
    return {"value": value}


def main():
    HERE.mkdir(exist_ok=True)
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    model(torch.randn(5, 3)).sum().backward()          # running stats moved; num_batches_tracked 1
    base = torch.arange(12, dtype=torch.float64)
    files = {
        "state_dict.pt": model.state_dict(),
        "kinds.pt": {"int64_transposed": torch.arange(6).reshape(2, 3).T, "bool": torch.tensor([True, False, True]),
                     "float16": torch.tensor([0.5, -2.0], dtype=torch.float16), "scalar": torch.tensor(3.25),
                     "empty": torch.zeros(0, 3), "int8": torch.tensor([-128, 127], dtype=torch.int8),
                     "uint8": torch.tensor([0, 255], dtype=torch.uint8), "int16": torch.tensor([-7], dtype=torch.int16),
                     "int32": torch.tensor([[1, 2]], dtype=torch.int32), "parameter": torch.nn.Parameter(torch.ones(2)),
                     "frozen": torch.nn.Parameter(torch.ones(1), requires_grad=False),
                     "dtype": torch.float64, "size": torch.Size([2, 3]), "device": torch.device("cpu"),
                     "plain": [1, 2.5, "text", None, True, (1, 2)], "bytes": b"\x00\xff"},
        # one storage, views at offsets and with strides: what a file of tied weights holds
        "shared.pt": {"whole": base, "slice": base[2:5], "strided": base[1::3], "matrix": base.view(3, 4),
                      "column": base.view(3, 4)[:, 1]},
        "bfloat16.pt": {"w": torch.ones(2, dtype=torch.bfloat16)},
    }
    expected = {}
    for name, obj in files.items():
        torch.save(obj, HERE / name)
        if name != "bfloat16.pt":
            expected[name] = described(torch.load(HERE / name, weights_only=True))
    (HERE / "expected.json").write_text(json.dumps({"torch": torch.__version__, "files": expected}, indent=1) + "\n")
    print(f"wrote {len(files)} files to {HERE} with PyTorch {torch.__version__}")


if __name__ == "__main__":
    main()
