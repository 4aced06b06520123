"""ONNX: Dagscope's IR written out as an ONNX model (`export.py`, one builder per IR op in
`export_ops.py`), and an ONNX model read back into the IR (`load.py`, one builder per ONNX operator
in `import_ops.py`), both with the `onnx` package.

It sits with capture and the passes: like a capture it turns something else into Graphs (an ONNX
file), and it reads only the IR and the op registry below it. `torch.onnx.export`
(engine/compat/torch/onnx.py) traces the model with engine.capture and hands the graph here; the
page's ONNX import (app/routes/onnx_import.py) reads an uploaded file through `load.py`."""
