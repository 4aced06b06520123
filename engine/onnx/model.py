"""`dagscope.onnx.load(path)`: an ONNX file as a model a run can draw, call and compile.

Loading publishes the imported graph as a static graph of the run record (capture "onnx"): the
record layer then shows it with the values of a call on a random input, its backward and the pass
pipeline's snapshots. Calling the model runs the graph op by op on Tensors (so `dagscope.compile`
can trace it and compile its kernels). A graph with operators Dagscope does not run is drawn (those
nodes marked) and refuses to be called, naming them."""
from __future__ import annotations

import inspect
import keyword
import os

import numpy as np

from engine.capture import trail
from engine.capture.common import run_eager
from engine.creation import tensor
from engine.errors import UnsupportedError
from engine.hooks import Message
from engine.onnx.reader import MAX_ELEMENTS, Imported, OnnxImportError, read, to_graph
from engine.tensor import Tensor

MAX_FILE_BYTES = 64 << 20


class OnnxModel:
    """An imported ONNX graph: `graph` (Dagscope's IR), `input_names`, `output_names`, `input_shapes`,
    `unknown_operators` (op type -> why it is not run)."""

    def __init__(self, imported: Imported, name: str):
        self._imported = imported
        self.name = name
        self.graph = imported.graph
        self.input_names = imported.input_names
        self.output_names = imported.output_names
        self.unknown_operators = dict(imported.unknown)
        inputs = [n for n in self.graph.placeholders if n.role == "input"]
        self.input_shapes = [tuple(n.out.shape) for n in inputs]
        self.input_dtypes = [n.out.dtype for n in inputs]
        self._weights = [tensor(imported.weights[n.out.id]) for n in self.graph.placeholders if n.role == "param"]
        self.__name__ = name
        # a signature of one parameter per input, for what reads it (dagscope.compile binds arguments by it)
        self.__signature__ = inspect.Signature(
            [inspect.Parameter(n if n.isidentifier() and not keyword.iskeyword(n) else f"input_{i}",
                               inspect.Parameter.POSITIONAL_OR_KEYWORD) for i, n in enumerate(self.input_names)])

    def random_inputs(self, seed: int = 0) -> list:
        """Inputs of the declared shapes: floats from N(0, 1), integers in 0..9 (token ids), from numpy's
        generator seeded with `seed` (the run's own random stream is left as it was)."""
        rng = np.random.default_rng(seed)
        out = []
        for shape, dtype in zip(self.input_shapes, self.input_dtypes):
            if dtype.kind == "f":
                out.append(tensor(rng.standard_normal(shape).astype(dtype)))
            elif dtype.kind == "b":
                out.append(tensor(np.zeros(shape, bool)))
            else:
                out.append(tensor(rng.integers(0, 10, shape).astype(dtype)))
        return out

    def __call__(self, *inputs):
        if self.unknown_operators:
            raise UnsupportedError(f"{self.name} holds operators Dagscope does not run: " + "; ".join(
                f"{op} ({why})" for op, why in self.unknown_operators.items()))
        if len(inputs) != len(self.input_shapes):
            raise TypeError(f"{self.name} takes {len(self.input_shapes)} inputs ({', '.join(self.input_names)}), "
                            f"not {len(inputs)}")
        for i, (x, shape) in enumerate(zip(inputs, self.input_shapes)):
            if not isinstance(x, Tensor) or tuple(x.shape) != shape:
                raise TypeError(f"input {self.input_names[i]!r} must be a Tensor of shape {shape}, not {type(x).__name__} {tuple(getattr(x, 'shape', ()))}")
        outs = run_eager(self.graph, list(inputs) + self._weights)
        return outs[0] if len(outs) == 1 else tuple(outs)

    def __repr__(self) -> str:
        ops: dict = {}
        for n in self.graph.nodes:
            if n.kind == "call":
                ops[n.op] = ops.get(n.op, 0) + 1
        lines = [f"ONNX model {self.name} (opset {self._imported.opset}): {sum(ops.values())} nodes"]
        lines += [f"  input  {n}: {tuple(s)} {d}" for n, s, d in zip(self.input_names, self.input_shapes,
                                                                     self.input_dtypes)]
        lines += [f"  output {n}: {tuple(v.shape)} {v.dtype}" for n, v in zip(self.output_names, self.graph.outputs)]
        lines.append("  operators: " + ", ".join(f"{op} x{k}" for op, k in sorted(ops.items())))
        lines += [f"  named dim {s}" for s in self._imported.symbolic[:8]]
        lines += [f"  not run: {op} ({why})" for op, why in self.unknown_operators.items()]
        return "\n".join(lines)


def load(f, name: str | None = None) -> OnnxModel:
    """Read an ONNX file (a path or bytes) and publish its graph for the run record."""
    if isinstance(f, (bytes, bytearray)):
        data, name = bytes(f), name or "model.onnx"
    else:
        path = os.fspath(f)
        size = os.path.getsize(path)
        if size > MAX_FILE_BYTES:
            raise OnnxImportError(f"{path} is {size:,} bytes; Dagscope opens ONNX files of at most {MAX_FILE_BYTES:,}")
        with open(path, "rb") as fh:
            data = fh.read()
        name = name or os.path.basename(path)
    model = OnnxModel(to_graph(read(data), name=os.path.splitext(name)[0] or "onnx"), name)
    if trail.recording():
        # (the reader's reasons and the file's names are quoted as they are, in every language)
        warnings = [Message("warning.onnx_not_run", f"{op} is drawn but not run: {why}", op=op, quote=why)
                    for op, why in model.unknown_operators.items()]
        warnings += [Message("warning.onnx_named_dim", f"named dim {s} (a size the file leaves open)", quote=s)
                     for s in model._imported.symbolic[:8]]
        inputs = None if model.unknown_operators else model.random_inputs() + model._weights
        trail.graph_captured(model.graph, "onnx", Message("title.onnx", f"ONNX {name}", name=name), target=model,
                             warnings=warnings, inputs=inputs, called=False, extra={"function": model.graph.name})
    return model


__all__ = ["load", "OnnxModel", "OnnxImportError", "MAX_ELEMENTS"]
