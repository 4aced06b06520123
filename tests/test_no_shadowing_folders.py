"""No folder under tests/ is named like a library a test or the engine imports: pytest puts test
folders on sys.path, so a folder `tests/engine/compat/tensorflow/` became a namespace package
`tensorflow` that `importlib.util.find_spec("tensorflow")` found on a machine without TensorFlow,
and the live TensorFlow oracle ran (and failed) instead of skipping."""
from pathlib import Path

ROOT = Path(__file__).resolve().parent
# the optional libraries a test looks for with find_spec (an installed regular package wins over a
# namespace folder, so only an absent one is shadowed). The corpus's program folders are named
# after their library (their paths are the programs' ids, kept in goldens and expectations): every
# check for a library must therefore also require a real module (`spec.origin is not None`).
KNOWN = {"corpus/tensorflow", "corpus/goldens/tensorflow", "corpus/jax", "corpus/goldens/jax"}
LIBRARIES = {"tensorflow", "keras", "jax", "flax", "onnx", "onnxruntime", "torchvision", "matplotlib"}


def test_no_test_folder_shadows_a_library():
    clashes = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*") if p.is_dir() and p.name in LIBRARIES
               and "__pycache__" not in p.parts]
    assert sorted(set(clashes) - KNOWN) == []
