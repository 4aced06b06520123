"""engine/compat/scope.py: one table says whether an unsupported name is planned or out of scope,
and every facade's "unsupported" error says it (the names that exist are still listed)."""
import pytest

from engine.compat.scope import LIBRARIES, OUT_OF_SCOPE, PLANNED, SCOPE, scope_of, sentence
from engine.runner import run_user_code


def test_the_longest_dotted_prefix_decides_and_tensorflow_is_written_tf():
    assert scope_of("torch.cuda.amp.autocast")[0] == OUT_OF_SCOPE
    assert scope_of("tensorflow.distribute.MirroredStrategy") == SCOPE["tf.distribute"]
    assert scope_of("torch.jit.save")[0] == PLANNED and scope_of("torch.jit.trace") is None
    assert sentence("torch.sparse_coo_tensor") == "It is not planned yet."
    assert {"torchvision", "matplotlib", "flax"} <= LIBRARIES and "jax" not in LIBRARIES and "torch" not in LIBRARIES


@pytest.mark.parametrize("code, fragments", [
    ("import torch\ntorch.cuda.memory_allocated()", ["torch.cuda.memory_allocated is not supported",
                                                      "out of scope", "no GPU", "Supported names in torch.cuda"]),
    ("import torch\ntorch.sparse_coo_tensor", ["not planned yet", "Supported names in torch:"]),
    ("import jax.random\njax.random.gamma", ["jax.random.gamma is not supported", "Supported names in jax.random:",
                                             "PRNGKey"]),
    ("import flax", ["`import flax`", "It is planned", "after JAX itself"]),
    ("import jax\njax.pmap(abs)", ["jax.pmap is not supported", "out of scope"]),
    ("import matplotlib.pyplot as plt", ["`import matplotlib`", "out of scope", "Charts tab"]),
    ("import torchvision.datasets", ["out of scope", "download"]),
    ("import torch.export", ["It is planned", "Supported modules: torch"]),
    ("import tensorflow as tf\ntf.distribute.MirroredStrategy()", ["tf.distribute is not supported", "out of scope"]),
    # a model's files (issue 19): the alternatives a run has, ONNX export and arrays
    ("import tensorflow as tf\ntf.saved_model.save(tf.Module(), 'exported')",
     ["tf.saved_model is not supported", "out of scope", "torch.onnx.export", "np.save", "Output tab"]),
    ("import tensorflow as tf\ntf.keras.models.save_model(None, 'm.keras')",
     ["save_model is not supported", "out of scope", "ONNX"]),
    ("import keras\nkeras.saving.save_model(None, 'm.keras')", ["saving is not supported", "out of scope"]),
])
def test_a_run_is_told_planned_or_out_of_scope(code, fragments):
    record = run_user_code(code)
    assert record["error"]["kind"] == "unsupported", record["error"]
    for fragment in fragments:
        assert fragment in record["error"]["message"], (fragment, record["error"]["message"])
