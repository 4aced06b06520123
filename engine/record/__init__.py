"""The record layer: what ran, turned into the run record (docs/run-record.md is its contract).

- recorder.py: the Recorder and the dynamic (autograd) graphs with their backprop steps
- listen.py: `use_recorder`, which subscribes the layer to engine.hooks while a run is recorded
- static.py: static graphs that captures publish, with backprop.py's steps, snapshots.py's pass
  snapshots and kernels.py's kernels and timings; calls.py: the calls of those graphs
- graph_json.py, values.py: graphs and tensors as the record writes them
- gradcheck.py: finite differences against a recorded backward, on request
"""
from engine.record.active import current
from engine.record.listen import use_recorder
from engine.record.recorder import MAX_GRAPH_NODES, MAX_STEPS, Recorder, backward_call, note_where
from engine.record.values import HEATMAP_SIDE, MAX_DATA_ELEMENTS, PREVIEW_ELEMENTS, tensor_json
from engine.user_code import USER_FILENAME, user_line

__all__ = ["current", "use_recorder", "Recorder", "backward_call", "note_where", "tensor_json", "USER_FILENAME",
           "user_line", "MAX_GRAPH_NODES", "MAX_STEPS", "HEATMAP_SIDE", "MAX_DATA_ELEMENTS", "PREVIEW_ELEMENTS"]
