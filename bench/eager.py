"""Eager-mode overhead: a chain of 1,000 tiny ops and one MLP training step, Dagscope vs numpy (and
real PyTorch when importable), measured in one run on the same BLAS thread count.

    .venv/bin/python bench/eager.py [--repeat N] [--threads N] [--clock wall|cpu]

The MLP is 784-512-512-10, batch 64, ReLU, cross-entropy, plain SGD. Dagscope runs it twice: with
engine.functional + a manual SGD update under no_grad, and with engine.nn + engine.optim when
those import. The numpy baseline is a hand-written float32 forward and backward.
Goals (issue 3): MLP step within 1.3x of numpy; per-op overhead at most 3x numpy's per-op cost.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

if "--threads" in sys.argv:   # BLAS reads its thread count when numpy is imported: set it first
    _n = sys.argv[sys.argv.index("--threads") + 1]
    for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[_var] = _n

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import engine  # noqa: E402
from engine import native, record  # noqa: E402
from engine import functional as F  # noqa: E402
from engine.tensor import Tensor  # noqa: E402
from peer import real_torch  # noqa: E402  (bench/ is on sys.path: this script's own folder)

CHAIN = 1000
CLOCK = time.perf_counter      # --clock cpu: time.process_time (this process's CPU time, all threads)
BATCH, SIZES = 64, (784, 512, 512, 10)
LR = 0.01


def best_times(fns: dict, repeat: int, burst: int = 3) -> dict:
    """Best time (s) of one call of each function. Rounds interleave the functions, so that load
    from other processes hits them alike; within a round each runs a short burst of calls, so
    that its caches and allocator state are its own rather than the previous function's."""
    for fn in fns.values():
        fn()                               # warm-up: caches, lazy imports
    best = {name: float("inf") for name in fns}
    for _ in range(max(1, repeat // burst)):
        for name, fn in fns.items():
            for _ in range(burst):
                start = CLOCK()
                fn()
                best[name] = min(best[name], CLOCK() - start)
    return best


# ---- 1. a chain of tiny ops --------------------------------------------------------------------

def chain_numpy(x, a, b):
    for _ in range(CHAIN // 2):
        x = x * a
        x = x + b
    return x


def chain_engine(x, a, b):
    for _ in range(CHAIN // 2):
        x = x * a
        x = x + b
    return x


def chain_as_pasted():
    """chain_engine as the page runs it: compiled as the user's file, its ops under a recorder (each
    node then notes its user line and module)."""
    import inspect
    namespace = {"CHAIN": CHAIN}
    exec(compile(inspect.getsource(chain_engine), record.USER_FILENAME, "exec"), namespace)
    chain = namespace["chain_engine"]

    def run(x, a, b):
        with record.use_recorder(record.Recorder()):
            return chain(x, a, b)
    return run


def chain_rows(repeat):
    x, a, b = (np.full(8, v, np.float32) for v in (1.0, 0.999, 0.001))
    ex, ea, eb = Tensor(x), Tensor(a), Tensor(b)
    gx = Tensor(x.copy(), requires_grad=True)
    pasted = chain_as_pasted()
    cases = {
        "numpy": lambda: chain_numpy(x, a, b),
        "Dagscope, no grad": lambda: chain_engine(ex, ea, eb),
        "Dagscope, recording the graph": lambda: chain_engine(gx, ea, eb),
        "Dagscope, recording, as a page run": lambda: pasted(gx, ea, eb),
        "Dagscope, forward + backward": lambda: chain_engine(gx, ea, eb).sum().backward(),
    }
    torch = real_torch()
    if torch is not None:
        tx, ta, tb = (torch.from_numpy(v.copy()) for v in (x, a, b))
        tgx = tx.clone().requires_grad_()
        cases["PyTorch, no grad"] = lambda: chain_engine(tx, ta, tb)
        cases["PyTorch, recording the graph"] = lambda: chain_engine(tgx, ta, tb)
        cases["PyTorch, forward + backward"] = lambda: chain_engine(tgx, ta, tb).sum().backward()
    t = best_times(cases, repeat)
    return [(f"1,000 tiny ops: {name}", seconds / CHAIN * 1e6, seconds / t["numpy"]) for name, seconds in t.items()]


# ---- 2. an MLP training step ---------------------------------------------------------------------

def init_params(seed=0):
    rng = np.random.default_rng(seed)
    params = []
    for fan_in, fan_out in zip(SIZES[:-1], SIZES[1:]):
        bound = 1 / np.sqrt(fan_in)
        params.append(rng.uniform(-bound, bound, (fan_out, fan_in)).astype(np.float32))
        params.append(rng.uniform(-bound, bound, fan_out).astype(np.float32))
    x = rng.standard_normal((BATCH, SIZES[0])).astype(np.float32)
    y = rng.integers(0, SIZES[-1], BATCH)
    return params, x, y


def numpy_step(params, x, y):
    """Hand-written forward + backward + SGD, float32, the way one would write it in numpy."""
    w1, b1, w2, b2, w3, b3 = params
    h1 = x @ w1.T + b1
    r1 = np.maximum(h1, 0)
    h2 = r1 @ w2.T + b2
    r2 = np.maximum(h2, 0)
    z = r2 @ w3.T + b3
    z = z - z.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    n = len(y)
    loss = -logp[np.arange(n), y].mean()
    dz = np.exp(logp)
    dz[np.arange(n), y] -= 1
    dz /= n
    dr2 = dz @ w3
    dh2 = dr2 * (h2 > 0)
    dr1 = dh2 @ w2
    dh1 = dr1 * (h1 > 0)
    grads = (dh1.T @ x, dh1.sum(0), dh2.T @ r1, dh2.sum(0), dz.T @ r2, dz.sum(0))
    for p, g in zip(params, grads):
        p -= LR * g
    return loss


def engine_functional_step(params, x, y):
    w1, b1, w2, b2, w3, b3 = params
    h = F.relu(F.linear(x, w1, b1))
    h = F.relu(F.linear(h, w2, b2))
    loss = F.cross_entropy(F.linear(h, w3, b3), y)
    for p in params:
        p.grad = None
    loss.backward()
    with engine.no_grad():
        for p in params:
            p.sub_(p.grad, alpha=LR)
    return loss


def engine_nn_setup(params):
    try:
        from engine import nn, optim
    except ImportError:
        return None
    model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
    with engine.no_grad():
        for p, value in zip(model.parameters(), params):
            p.copy_(Tensor(value))
    opt = optim.SGD(model.parameters(), lr=LR)
    loss_fn = nn.CrossEntropyLoss()

    def step(x, y):
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        return loss
    return step


def torch_setup(params, threads):
    torch = real_torch()
    if torch is None:
        return None
    torch.set_num_threads(threads)
    model = torch.nn.Sequential(torch.nn.Linear(784, 512), torch.nn.ReLU(), torch.nn.Linear(512, 512),
                                torch.nn.ReLU(), torch.nn.Linear(512, 10))
    with torch.no_grad():
        for p, value in zip(model.parameters(), params):
            p.copy_(torch.from_numpy(value))
    opt = torch.optim.SGD(model.parameters(), lr=LR)

    def step(x, y):
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss
    return step, torch


def blas_threads() -> int:
    try:
        from threadpoolctl import threadpool_info
        return max((p["num_threads"] for p in threadpool_info() if p.get("user_api") == "blas"), default=1)
    except ImportError:
        return int(os.environ.get("OPENBLAS_NUM_THREADS") or os.environ.get("OMP_NUM_THREADS") or os.cpu_count())


def mlp_rows(repeat):
    params, x, y = init_params()

    # the two implementations agree on the loss of the first step (same parameters)
    want = numpy_step([p.copy() for p in params], x, y)
    got = engine_functional_step([Tensor(p.copy(), requires_grad=True) for p in params], Tensor(x), Tensor(y))
    assert abs(got.item() - want) <= 1e-5 * abs(want), (got.item(), want)

    np_params = [p.copy() for p in params]
    e_params = [Tensor(p.copy(), requires_grad=True) for p in params]
    ex, ey = Tensor(x), Tensor(y)
    cases = {"MLP step: numpy (hand-written fwd+bwd)": lambda: numpy_step(np_params, x, y),
             "MLP step: Dagscope functional + manual SGD": lambda: engine_functional_step(e_params, ex, ey)}
    nn_step = engine_nn_setup(params)
    if nn_step is not None:
        cases["MLP step: Dagscope nn.Sequential + optim.SGD"] = lambda: nn_step(ex, ey)
    setup = torch_setup(params, blas_threads())
    if setup is not None:
        step, torch = setup
        tx, ty = torch.from_numpy(x), torch.from_numpy(y)
        cases["MLP step: PyTorch"] = lambda: step(tx, ty)
    t = best_times(cases, repeat)
    base = t["MLP step: numpy (hand-written fwd+bwd)"]
    return [(name, seconds * 1e3, seconds / base) for name, seconds in t.items()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--threads", type=int, help="BLAS threads for numpy, Dagscope and PyTorch alike")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="cpu = process CPU time: steadier than wall time on a loaded machine")
    args = parser.parse_args()
    global CLOCK
    CLOCK = time.process_time if args.clock == "cpu" else time.perf_counter
    print(f"numpy {np.__version__}, BLAS threads {blas_threads()}, best of {args.repeat} interleaved runs, "
          f"{args.clock} clock, load average {os.getloadavg()[0]:.1f}")
    print(f"Dagscope's C operators (engine/native): {native.status()}\n")
    torch = real_torch()
    if torch is not None:        # the same thread count as numpy's BLAS, for the tiny ops as well
        torch.set_num_threads(blas_threads())
    print(f"{'case':50s} {'time':>12s} {'vs numpy':>9s}")
    chain = chain_rows(args.repeat)
    for name, value, ratio in chain:
        print(f"{name:50s} {value:9.2f} us {ratio:8.2f}x")
    for name, value, ratio in mlp_rows(args.repeat):
        print(f"{name:50s} {value:9.2f} ms {ratio:8.2f}x")
    # Each tiny op calls numpy once: what a framework adds per op is its time beyond that call.
    numpy_us = chain[0][1]
    print("\nper-op time beyond numpy's own call (the framework's bookkeeping), in numpy per-op costs:")
    for name, value, _ in chain[1:]:
        if "forward + backward" not in name:
            print(f"  {name.split(': ')[1]:40s} {value - numpy_us:6.2f} us {(value - numpy_us) / numpy_us:6.2f}x")
    print("\ngoals: MLP step <= 1.3x numpy; per-op overhead <= 3x numpy's per-op cost")


if __name__ == "__main__":
    main()
