"""What Dagscope will not do, and what it plans to: the one table an "unsupported" error reads, so
a teacher learns whether to wait for a name or to write the lesson another way.

Keys are names as a program writes them (`torch.cuda`, `tf.distribute`, `jax`), matched by their
longest dotted prefix: `torch.cuda.amp.autocast` is covered by `torch.cuda`. A name in no entry
is simply not supported yet: the error says so and lists what exists."""
from __future__ import annotations

PLANNED = "planned"
OUT_OF_SCOPE = "out of scope"

_CPU_ONLY = "Dagscope runs every program on the CPU of the server, in one process: there is no GPU"
_ONE_PROCESS = "a run is one sandboxed process with no network, so there is nothing to distribute over"
_DOWNLOADS = "a run has no network, so nothing can be downloaded"
# TensorFlow's and Keras' model files (issue 19): what a run can write instead
_MODEL_FILES = ("Dagscope writes no SavedModel or .keras archive; a model file other tools open is ONNX, which "
                "torch.onnx.export writes from a PyTorch model (onnxruntime, Netron and the page's Open ONNX read it), "
                "and a model's weights can be saved as arrays (np.save); the files a run writes are downloaded from "
                "the Output tab")
_STRATEGIES = ("Dagscope runs a program's ops one after another on the one CPU: a strategy that replicates "
               "the model (MirroredStrategy, over logical CPUs too) or spreads it over processes has nothing to "
               "run on; write the training loop for one device")

SCOPE: dict[str, tuple[str, str]] = {
    # the GPU and other devices
    "torch.cuda": (OUT_OF_SCOPE, _CPU_ONLY),
    "torch.backends.cudnn": (OUT_OF_SCOPE, _CPU_ONLY),
    "torch.backends.mps": (OUT_OF_SCOPE, _CPU_ONLY),
    "torch.mps": (OUT_OF_SCOPE, _CPU_ONLY),
    "torch.xpu": (OUT_OF_SCOPE, _CPU_ONLY),
    "torch.amp": (OUT_OF_SCOPE, _CPU_ONLY + " (mixed precision is a GPU technique)"),
    "tf.config.experimental.set_memory_growth": (OUT_OF_SCOPE, _CPU_ONLY),
    "tf.test.gpu_device_name": (OUT_OF_SCOPE, _CPU_ONLY),
    # more than one process or machine
    "torch.distributed": (OUT_OF_SCOPE, _ONE_PROCESS),
    "torch.multiprocessing": (OUT_OF_SCOPE, _ONE_PROCESS),
    "torch.nn.parallel": (OUT_OF_SCOPE, _ONE_PROCESS),
    "torch.nn.DataParallel": (OUT_OF_SCOPE, _ONE_PROCESS),
    "tf.distribute": (OUT_OF_SCOPE, _STRATEGIES),
    # downloads and the file system outside the run
    "torch.hub": (OUT_OF_SCOPE, _DOWNLOADS + "; build the model with torch.nn"),
    "torch.utils.model_zoo": (OUT_OF_SCOPE, _DOWNLOADS + "; build the model with torch.nn"),
    "keras.datasets": (OUT_OF_SCOPE, "Keras datasets are downloads, and a run has no network"),
    "tf.keras.datasets": (OUT_OF_SCOPE, "Keras datasets are downloads, and a run has no network"),
    "tf.keras.applications": (OUT_OF_SCOPE, _DOWNLOADS + " (pretrained weights); build the model with layers"),
    "keras.applications": (OUT_OF_SCOPE, _DOWNLOADS + " (pretrained weights); build the model with layers"),
    # companion libraries
    "torchvision": (OUT_OF_SCOPE, "its datasets, models and transforms download data and weights; build the "
                                  "inputs with torch.tensor, torch.linspace or torch.randn and the models with torch.nn"),
    "torchaudio": (OUT_OF_SCOPE, "build the waveforms or features with torch.tensor / torch.linspace"),
    "torchtext": (OUT_OF_SCOPE, "build the token ids with torch.tensor and embed them with torch.nn.Embedding"),
    "matplotlib": (OUT_OF_SCOPE, "Dagscope draws no figures of its own; log values with SummaryWriter or print "
                                 "them under a name (loss, accuracy) and the Charts tab plots them"),
    "seaborn": (OUT_OF_SCOPE, "the Charts tab plots what SummaryWriter logs or a loop prints"),
    # on the road map (the project's open issues)
    "jax.pmap": (OUT_OF_SCOPE, _ONE_PROCESS),
    "jax.sharding": (OUT_OF_SCOPE, _ONE_PROCESS),
    "jax.distributed": (OUT_OF_SCOPE, _ONE_PROCESS),
    "jax.experimental.pjit": (OUT_OF_SCOPE, _ONE_PROCESS),
    "flax": (PLANNED, "after JAX itself"),
    "torch.export": (PLANNED, "torch.export is planned; torch.onnx.export writes an ONNX file now"),
    "torch.jit.save": (PLANNED, "TorchScript archives are planned; torch.onnx.export writes a model file other tools "
                                "open (ONNX) now"),
    "torch.jit.load": (PLANNED, "export and import are planned"),
    "tf.saved_model": (OUT_OF_SCOPE, _MODEL_FILES),
    "tf.keras.saving": (OUT_OF_SCOPE, _MODEL_FILES),
    "keras.saving": (OUT_OF_SCOPE, _MODEL_FILES),
    "onnxruntime": (OUT_OF_SCOPE, "a run does not execute ONNX files: torch.onnx.export writes one, which "
                                  "onnxruntime opens outside Dagscope and the page's ONNX import draws and runs"),
}

# the libraries of the table a run cannot import at all (each has a sentence saying why)
LIBRARIES = frozenset(name for name in SCOPE if "." not in name)

# a program's spelling of the package -> the table's (`import tensorflow as tf` writes tf.*)
_SPELLINGS = {"tensorflow": "tf"}


def scope_of(name: str) -> tuple[str, str] | None:
    """(PLANNED or OUT_OF_SCOPE, why) for `name`, by its longest dotted prefix in SCOPE."""
    top, dot, rest = name.partition(".")
    name = _SPELLINGS.get(top, top) + dot + rest
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        entry = SCOPE.get(".".join(parts[:end]))
        if entry is not None:
            return entry
    return None


def sentence(name: str) -> str:
    """What an "unsupported" error adds about `name`: planned, out of scope, or not yet."""
    entry = scope_of(name)
    if entry is None:
        return "It is not planned yet."
    status, why = entry
    return f"It is {status}: {why}."
