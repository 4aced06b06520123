"""Fixtures shared by the engine's tests (opt-in: a module asks for them by name), and helpers."""
import numpy as np
import pytest


def central_difference(f, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """The gradient of scalar function f at x by central differences, one element at a time."""
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        plus, minus = x.copy(), x.copy()
        plus[i] += eps
        minus[i] -= eps
        grad[i] = (f(plus) - f(minus)) / (2 * eps)
    return grad


@pytest.fixture(scope="module")
def kernel_cache(tmp_path_factory):
    """Compiled kernels cached in the test session's temporary folder rather than the user's cache,
    and the backend chosen by each test rather than by DAGSCOPE_BACKEND. Use it with
    `pytestmark = pytest.mark.usefixtures("kernel_cache")`."""
    mp = pytest.MonkeyPatch()
    mp.setenv("DAGSCOPE_KERNEL_CACHE", str(tmp_path_factory.getbasetemp() / "kernels"))
    mp.delenv("DAGSCOPE_BACKEND", raising=False)
    yield
    mp.undo()


@pytest.fixture
def real_torch():
    """Real PyTorch, the optional oracle; the test is skipped where it is not installed."""
    torch = pytest.importorskip("torch")
    if "dagscope" in getattr(torch, "__version__", ""):
        pytest.skip("torch is Dagscope's own facade here, not the real library")
    return torch


def run_real_tensorflow(program: str) -> tuple[str, str]:
    """(stdout, stderr) of `program` run by real TensorFlow in a child, read from the child's file
    descriptors (tf.print writes from TensorFlow's C++ kernel, past Python's sys.stdout). The test is
    skipped where TensorFlow is not installed; mark it `oracle` (TensorFlow is large and slow to import)."""
    import importlib.util
    import os
    import subprocess
    import sys
    import tempfile
    spec = importlib.util.find_spec("tensorflow")
    if spec is None or spec.origin is None:       # (a folder named tensorflow on sys.path is not TensorFlow)
        pytest.skip("real TensorFlow is not installed (make test-oracles installs it)")
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2", "CUDA_VISIBLE_DEVICES": "", "OMP_NUM_THREADS": "1"}
    with tempfile.TemporaryDirectory() as folder:    # a file, not -c: AutoGraph reads a function's source
        script = os.path.join(folder, "program.py")
        with open(script, "w") as f:
            f.write(program)
        # (the script's folder, not the checkout, is first on the child's sys.path: nothing shadows TensorFlow)
        done = subprocess.run([sys.executable, script], capture_output=True, timeout=600, cwd=folder, env=env)
    # decoded as written: a \r (Keras redrawing its progress line) stays a \r
    stdout, stderr = done.stdout.decode(), done.stderr.decode()
    assert done.returncode == 0, stderr[-3000:]
    return stdout, stderr
