"""ONNX: Dagscope's IR written out as an ONNX model (`export.py`, one builder per IR op in
`export_ops.py`), and an ONNX model read back into the IR (`reader.py`, one builder per ONNX operator
in `import_ops.py`; `model.py`'s `load` is `dagscope.onnx.load` in a run), both with the `onnx` package.

It sits with capture and the passes: like a capture it turns something else into Graphs (an ONNX
file), and it reads only the IR and the op registry below it. `torch.onnx.export`
(engine/compat/torch/onnx.py) traces the model with engine.capture and hands the graph here; the
page's ONNX import (app/routes/onnx_import.py) hands an uploaded file to a sandboxed run that calls `load`."""
from engine.onnx.model import OnnxModel, load  # noqa: E402,F401  (dagscope.onnx.load)
