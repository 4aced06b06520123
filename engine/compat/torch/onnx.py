"""`torch.onnx`: `export` traces the model (engine.capture, as `torch.jit.trace` does) and writes the
captured graph as a real ONNX file (engine/onnx) that onnxruntime and Netron open."""
from __future__ import annotations

import contextlib
import warnings as _warnings

from engine.capture.common import is_module, param_names
from engine.capture.tracing import trace_graph
from engine.compat.torch._surface import unsupported_getattr as _unsupported_getattr
from engine.errors import UnsupportedError as _UnsupportedError
from engine.onnx import export as _export
from engine.tensor import Tensor as _Tensor

_exporting = [False]


class _Errors:
    """torch.onnx.errors: the exception a program catches around an export."""
    UnsupportedOperatorError = _export.UnsupportedOperatorError
    OnnxExporterError = _UnsupportedError


errors = _Errors


class TrainingMode:
    EVAL, PRESERVE, TRAINING = "EVAL", "PRESERVE", "TRAINING"


def _flatten(out) -> list:
    """The model's outputs in order, nested tuples and lists flattened and None dropped, as PyTorch's
    exporter flattens them (nanoGPT returns (logits, None) without targets)."""
    if out is None:
        return []
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flatten(o)]
    if isinstance(out, dict):
        return [t for o in out.values() for t in _flatten(o)]
    return [out]


@contextlib.contextmanager
def _mode(model, training):
    """EVAL (the default) exports the model in eval mode and restores its mode after, as PyTorch does."""
    was = getattr(model, "training", None)
    if is_module(model) and training != TrainingMode.PRESERVE:
        model.train(training == TrainingMode.TRAINING)
    _exporting[0] = True
    try:
        yield
    finally:
        _exporting[0] = False
        if is_module(model) and was is not None:
            model.train(was)


def export(model, args=(), f=None, *more, input_names=None, output_names=None, dynamic_axes=None,
           opset_version=None, external_data=False, use_external_data_format=False, training=TrainingMode.EVAL,
           kwargs=None, export_params=True, do_constant_folding=True, verbose=False, dynamo=False, **options):
    """Writes `model` called on `args` to `f` (a path or a binary file) as ONNX: the trace's graph with
    the module's parameters and buffers as initializers (in the file, or with `external_data=True` in
    `<f>.data` beside it). Returns None, as PyTorch's TorchScript-based exporter does."""
    if more:
        raise TypeError("torch.onnx.export() takes model, args and f by position; pass the rest by keyword")
    if options:
        raise _UnsupportedError(f"torch.onnx.export: the option{'s' if len(options) > 1 else ''} "
                                f"{', '.join(sorted(options))} {'are' if len(options) > 1 else 'is'} not supported by "
                                "Dagscope (supported: input_names, output_names, dynamic_axes, opset_version, "
                                "external_data, training, export_params)")
    if f is None:
        raise _UnsupportedError("torch.onnx.export without f (returning an ONNXProgram) is not supported by "
                                "Dagscope: give a file name, e.g. torch.onnx.export(model, x, 'model.onnx')")
    if kwargs:
        raise _UnsupportedError("torch.onnx.export: keyword inputs (kwargs=) are not supported by Dagscope; "
                                "pass the inputs in args")
    args = (args,) if isinstance(args, _Tensor) else tuple(args)
    if args and isinstance(args[-1], dict):
        if args[-1]:
            raise _UnsupportedError("torch.onnx.export: keyword inputs (a dict at the end of args) are not supported "
                                    "by Dagscope; pass the inputs by position")
        args = args[:-1]
    for i, a in enumerate(args):
        if not isinstance(a, _Tensor):
            raise TypeError(f"torch.onnx.export: args[{i}] is a {type(a).__name__}; the model's inputs must be Tensors")
    target = getattr(model, "_original", model)             # a traced module: export the module it traced
    with _mode(target, training):
        graph, tracer, _, _ = trace_graph(lambda *xs: tuple(_flatten(target(*xs))), args,
                                          name=type(target).__name__ if is_module(target) else None,
                                          module=target if is_module(target) else None)
    params = {}
    for node, (kind, ref) in zip(graph.placeholders, tracer.kinds):
        if kind == "state":
            params[node.out.id] = (ref, tracer.arrays[node.out.id])
        elif kind == "lifted":
            params[node.out.id] = (ref._name or node.out.name, ref.array)
    if not export_params:
        raise _UnsupportedError("torch.onnx.export(export_params=False) is not supported by Dagscope: the file "
                                "always holds the parameters")
    n_in, n_out = len(args), len(graph.outputs)
    # unnamed inputs are called as the model's forward names its parameters (nanoGPT's `idx`)
    own = [n for n in param_names(target.forward if is_module(target) else target) if n != "self"]
    input_names = list(input_names or [])[:n_in]
    input_names += [own[i] if i < len(own) else f"input_{i}" for i in range(len(input_names), n_in)]
    output_names = list(output_names or [])[:n_out]
    output_names += [f"output_{i}" if n_out > 1 or i else "output" for i in range(len(output_names), n_out)]
    past_batch = sorted(f"{name}[{axis}]" for name, axes in (dynamic_axes or {}).items()
                        for axis in (axes.keys() if isinstance(axes, dict) else axes) if int(axis) != 0)
    if past_batch:
        # The trace has concrete sizes: a size computed from a later axis (nanoGPT's arange(t), its
        # mask sliced to t) is a constant in the graph, where PyTorch's exporter records the shape op
        _warnings.warn(f"torch.onnx.export: Dagscope exports only the first (batch) axis as dynamic. "
                       f"{', '.join(past_batch)} {'is' if len(past_batch) == 1 else 'are'} named dynamic in the "
                       f"file's inputs and outputs, but sizes the model computes from "
                       f"{'it' if len(past_batch) == 1 else 'them'} are constants in its graph: the file runs "
                       f"at the traced size only along {'that axis' if len(past_batch) == 1 else 'those axes'}",
                       UserWarning, stacklevel=2)
    opset = _export.DEFAULT_OPSET if opset_version is None else int(opset_version)
    model_proto = _export.graph_to_model(graph, params=params, input_names=input_names, output_names=output_names,
                                         dynamic_axes=dynamic_axes, opset=opset,
                                         doc=f"exported by Dagscope from a trace of {graph.name}")
    _export.save(model_proto, f, external_data=bool(external_data or use_external_data_format))
    return None


def is_in_onnx_export() -> bool:
    """True while torch.onnx.export runs the model (models check this to take their export-only branch)."""
    return _exporting[0]


__getattr__ = _unsupported_getattr("torch.onnx", globals())
