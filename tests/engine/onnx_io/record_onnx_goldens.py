"""Records what onnxruntime (the optional oracle: pip install '.[oracles]') computes from Dagscope's
ONNX exports of onnx_models.py's models, so test_onnx_export.py checks them without onnxruntime.
Each entry holds the exported file's sha256 (a changed exporter must be recorded again), its
operators and the outputs onnxruntime gave.

    .venv/bin/python tests/engine/onnx_io/record_onnx_goldens.py
"""
from __future__ import annotations

import hashlib
import json
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))

import numpy as np  # noqa: E402
import onnx  # noqa: E402
import onnxruntime  # noqa: E402

from tests.engine.onnx_io.onnx_models import DYNAMIC, build, dynamic_input, export_bytes  # noqa: E402

GOLDENS = HERE / "onnx_goldens.json"


def run_onnxruntime(data: bytes, inputs: list[np.ndarray]) -> list[np.ndarray]:
    session = onnxruntime.InferenceSession(data, providers=["CPUExecutionProvider"])
    return session.run(None, {i.name: x for i, x in zip(session.get_inputs(), inputs)})


def entry(data: bytes, inputs: list[np.ndarray]) -> dict:
    model = onnx.load_from_string(data)
    outs = run_onnxruntime(data, inputs)
    return {"sha256": hashlib.sha256(data).hexdigest(), "nodes": len(model.graph.node),
            "operators": dict(sorted(Counter(n.op_type for n in model.graph.node).items())),
            "outputs": [{"shape": list(o.shape), "dtype": str(o.dtype), "values": o.ravel().tolist()} for o in outs]}


def main() -> None:
    goldens = {"onnxruntime": onnxruntime.__version__, "onnx": onnx.__version__, "models": {}, "dynamic_batch": {}}
    for name, (model, inputs, _) in build().items():
        goldens["models"][name] = entry(export_bytes(model, inputs), [x.numpy() for x in inputs])
        if name in DYNAMIC:
            data = export_bytes(model, inputs, input_names=["x"], output_names=["y"],
                                dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}})
            goldens["dynamic_batch"][name] = entry(data, [dynamic_input(DYNAMIC[name])])
    GOLDENS.write_text(json.dumps(goldens, indent=1) + "\n")
    print(f"wrote {GOLDENS}")


if __name__ == "__main__":
    main()
