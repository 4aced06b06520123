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
