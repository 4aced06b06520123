"""Training-step benchmark: MLP 784-512-512-10 (ReLU, cross-entropy, SGD), batch 64.

Dagscope eager, Dagscope compiled (forward and backward as compiled kernels + BLAS, joined to
eager autograd), hand-written numpy (the BLAS floor numpy gives us), and PyTorch eager /
torch.compile when a real PyTorch is installed; plus the MLP's compile latency cold and warm.

    .venv/bin/python bench/training.py [--rounds N] [--threads N] [--system-malloc] [--no-latency]

The variants run in interleaved rounds (a load spike hits all alike). Interleaving has a cost of
its own: each variant frees megabytes of arrays that the next one allocates again, and glibc's
malloc then returns memory to the kernel and takes it back, page by page (measured: ~800 minor
page faults per step for numpy and for Dagscope alike, none when either runs alone). So by
default the benchmark keeps freed memory in the process (glibc's mallopt: no trimming, no
per-array mmap), which is what a training loop that runs alone sees; `--system-malloc` keeps
glibc's defaults. The table reports the page faults per step either way.
"""
from __future__ import annotations

import argparse
import copy
import ctypes
import ctypes.util
import os
import sys
import time

# Same thread count for every variant, set before numpy loads its BLAS: `--threads N` (default 1;
# with 2 threads on a shared 2-core machine OpenBLAS's spinning threads make timings erratic).
THREADS = sys.argv[sys.argv.index("--threads") + 1] if "--threads" in sys.argv else "1"
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = THREADS

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from kernels import fresh_cache, interleaved, machine, table  # noqa: E402
from peer import real_torch  # noqa: E402

BATCH, SIZES, LR = 64, (784, 512, 512, 10), 0.01
WARM_SAMPLES = 5


def data(seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((BATCH, SIZES[0])).astype(np.float32), rng.integers(0, SIZES[-1], BATCH)


def dagscope_model():
    import engine
    from engine import nn
    engine.manual_seed(0)
    return nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))


def eager_step(model, opt, loss_fn, x, y):
    opt.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    opt.step()
    return loss



def compiled_step_factory(model, loss_fn, x, y, backend=None):
    from engine import nn, optim
    from engine.capture.tracing import trace_graph
    from engine.codegen.training import CompiledAutograd

    class Wrapped(nn.Module):
        def __init__(self):
            super().__init__()
            self.model = model

        def forward(self, xb, yb):
            return loss_fn(self.model(xb), yb)

    wrapped = Wrapped()
    t0 = time.perf_counter()
    graph, _, _, names = trace_graph(wrapped, (x, y))
    t1 = time.perf_counter()
    params = dict(wrapped.named_parameters())
    ordered = [params[n] for n in names]
    fn = CompiledAutograd(graph, wrt=[n.id for n in graph.placeholders if n.role == "param"], backend=backend)
    t2 = time.perf_counter()
    opt = optim.SGD(model.parameters(), lr=LR)

    def step():
        opt.zero_grad()
        (loss,) = fn(x, y, *ordered)
        loss.backward()
        opt.step()
        return loss
    return step, fn, (t1 - t0) * 1000, (t2 - t1) * 1000


class NumpyMLP:
    """The hand-written reference: forward, backward and SGD in numpy, buffers reused."""

    def __init__(self, model):
        layers = [m for m in model if hasattr(m, "weight")]
        self.w = [np.ascontiguousarray(m.weight.array.T) for m in layers]    # (in, out)
        self.b = [m.bias.array.copy() for m in layers]

    def step(self, x, y):
        w, b = self.w, self.b
        h1 = x @ w[0]
        h1 += b[0]
        np.maximum(h1, 0, out=h1)
        h2 = h1 @ w[1]
        h2 += b[1]
        np.maximum(h2, 0, out=h2)
        z = h2 @ w[2]
        z += b[2]
        z -= z.max(axis=1, keepdims=True)
        np.exp(z, out=z)
        z /= z.sum(axis=1, keepdims=True)            # softmax
        loss = -np.log(z[np.arange(BATCH), y]).mean()
        z[np.arange(BATCH), y] -= 1
        z /= BATCH                                   # dloss/dlogits
        g3, gb3 = h2.T @ z, z.sum(0)
        d2 = z @ w[2].T
        d2 *= h2 > 0
        g2, gb2 = h1.T @ d2, d2.sum(0)
        d1 = d2 @ w[1].T
        d1 *= h1 > 0
        g1, gb1 = x.T @ d1, d1.sum(0)
        for p, g in zip(w + b, (g1, g2, g3, gb1, gb2, gb3)):
            p -= LR * g
        return loss


def keep_freed_memory() -> bool:
    """glibc: keep freed memory for reuse instead of giving it back to the kernel (no trimming of
    the heap, no mmap per large array), as a loop running alone effectively gets. False elsewhere."""
    name = ctypes.util.find_library("c")
    if not name:
        return False
    try:
        mallopt = ctypes.CDLL(name).mallopt
    except (OSError, AttributeError):
        return False
    m_trim_threshold, m_mmap_threshold = -1, -3
    return bool(mallopt(m_trim_threshold, 1 << 30)) and bool(mallopt(m_mmap_threshold, 32 << 20))


def run_step_table(repeats: int = 101) -> str:
    import engine
    from engine import nn, optim
    xa, ya = data()
    x, y = engine.tensor(xa), engine.tensor(ya)
    loss_fn = nn.CrossEntropyLoss()
    base = dagscope_model()
    variants = {}
    m_np = NumpyMLP(base)
    variants["hand-written numpy (forward + backward + SGD)"] = lambda: m_np.step(xa, ya)
    m_e = copy.deepcopy(base)
    opt_e = optim.SGD(m_e.parameters(), lr=LR)
    variants["Dagscope eager"] = lambda: eager_step(m_e, opt_e, loss_fn, x, y)
    fresh_cache()
    step, fn, _, _ = compiled_step_factory(copy.deepcopy(base), loss_fn, x, y)
    # the kernel counts (forward + backward) in the label: a fusion change that splits a loop (a bias
    # gradient summed in a pass of its own) shows here beside its time
    kernels = f"{len(fn.forward.kernels)} + {len(fn.backward.kernels)}"
    variants[f"Dagscope compiled, model + loss one graph ({fn.forward.backend}: {kernels} kernels + BLAS)"] = step
    # what pasted code does: torch.compile(model), the loss outside it (eager), as PyTorch's row
    m_c = copy.deepcopy(base)
    compiled_model = engine.compile(m_c)
    opt_c = optim.SGD(m_c.parameters(), lr=LR)
    variants["Dagscope torch.compile(model), loss eager"] = lambda: eager_step(compiled_model, opt_c, loss_fn, x, y)
    torch = real_torch()
    if torch is not None:
        tm = torch.nn.Sequential(torch.nn.Linear(784, 512), torch.nn.ReLU(), torch.nn.Linear(512, 512),
                                 torch.nn.ReLU(), torch.nn.Linear(512, 10))
        tx, ty = torch.from_numpy(xa), torch.from_numpy(ya)
        topt = torch.optim.SGD(tm.parameters(), lr=LR)
        tl = torch.nn.CrossEntropyLoss()

        def tstep(model):
            topt.zero_grad()
            loss = tl(model(tx), ty)
            loss.backward()
            topt.step()
        cm = torch.compile(tm)
        variants["PyTorch eager"] = lambda: tstep(tm)
        variants["torch.compile(model), loss eager"] = lambda: tstep(cm)
    faults: dict = {}
    results = interleaved(variants, repeats, faults)
    floor = results["hand-written numpy (forward + backward + SGD)"]
    rows = [[name, best, med, cpu, best / floor[0], cpu / floor[2], f"{faults[name]:.0f}"]
            for name, (best, med, cpu) in results.items()]
    return table(f"MLP 784-512-512-10 training step, batch {BATCH} ({repeats} interleaved rounds, ms)",
                 ["variant", "min", "median", "median CPU", "x numpy (min)", "x numpy (CPU)", "page faults"], rows)


def run_compile_latency() -> str:
    import engine
    from engine import nn
    from engine.codegen import loader
    xa, ya = data()
    x, y = engine.tensor(xa), engine.tensor(ya)
    loss_fn = nn.CrossEntropyLoss()
    rows = []

    def once(forget_loaded=False):
        if forget_loaded:
            loader.forget_loaded()             # as a new process would: only the disk cache is warm
        _, fn, trace_ms, total_ms = compiled_step_factory(dagscope_model(), loss_fn, x, y)
        build_ms = fn.forward.current.build_ms + fn.backward.current.build_ms
        cc_ms = fn.forward.compile_ms + fn.backward.compile_ms
        n = len(fn.forward.kernels) + len(fn.backward.kernels)
        return [n, trace_ms, total_ms - build_ms, build_ms, cc_ms, trace_ms + total_ms]

    fresh_cache()
    rows.append(["cold (empty cache)"] + once())
    # warm compiles take milliseconds, so one sample is at the mercy of the machine's load: the
    # fastest of WARM_SAMPLES (by total) is reported, as the step table reports its minimum too
    for label, forget in (("warm (disk cache)", True), ("warm (in process)", False)):
        samples = [once(forget) for _ in range(WARM_SAMPLES)]
        rows.append([f"{label}, best of {WARM_SAMPLES}"] + min(samples, key=lambda r: r[-1]))
    return table("compile latency, MLP training step (forward + backward graphs), ms",
                 ["cache", "kernels", "trace", "autodiff + passes", "build (lower, render, cc, dlopen)",
                  "of which the C compiler", "total"], rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=101, help="interleaved rounds of the step table")
    parser.add_argument("--threads", default="1", help="BLAS threads for every variant (read before numpy loads)")
    parser.add_argument("--system-malloc", action="store_true", help="keep glibc's default trimming (see above)")
    parser.add_argument("--no-latency", action="store_true", help="skip the compile-latency table")
    args = parser.parse_args()
    kept = False if args.system_malloc else keep_freed_memory()
    print(f"Machine: {machine()}, freed memory kept (mallopt): {'yes' if kept else 'no'}\n")
    print(run_step_table(args.rounds))
    if not args.no_latency:
        print(run_compile_latency())


if __name__ == "__main__":
    main()
