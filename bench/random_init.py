"""Initialisation and GELU: Dagscope's C loops (engine/native) and its numpy reference path against real
PyTorch (one thread), measured interleaved in one run. Issue 16's goal: initialisation <= 2x PyTorch's.

    .venv/bin/python bench/random_init.py [--repeat 5]

Each case runs the same code under real torch and under Dagscope's facade, with the C loops on
(random_pytorch's mt_* and special's erf/GELU loops) and off (the numpy methods they are tested
against), and prints the best time of each. The last two cases are bench/models/nanogpt.py's
setup (the model built and initialised) and its step, in the runner's namespace.
"""
from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):   # one thread, as runs have
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import contextlib  # noqa: E402
import io  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

CASES = {
    "manual_seed + nn.Linear(384, 1536), nn.Linear(1536, 384), nn.Embedding(65, 384)": """
torch.manual_seed(0)
layers = [torch.nn.Linear(384, 1536), torch.nn.Linear(1536, 384), torch.nn.Embedding(65, 384)]
""",
    "nanoGPT's _init_weights: normal_(std=0.02) of 6 x (384x1152, 384x384, 384x1536, 1536x384)": """
torch.manual_seed(0)
for _ in range(6):
    for shape in ((1152, 384), (384, 384), (1536, 384), (384, 1536)):
        torch.nn.init.normal_(torch.empty(shape), mean=0.0, std=0.02)
""",
    "torch.randn(10_000_000)": "x = torch.randn(10_000_000)",
    "torch.rand(10_000_000)": "x = torch.rand(10_000_000)",
    "torch.randperm(1_000_000)": "x = torch.randperm(1_000_000)",
    "GELU forward + backward, 4 x 64 x 1536": """
x = gelu_input.clone().requires_grad_(True)
torch.nn.functional.gelu(x).backward(gelu_grad)
""",
    "nanoGPT (bench/models/nanogpt.py): model construction": "MODEL_SETUP",
    "nanoGPT (bench/models/nanogpt.py): forward + backward, 4 x 64 tokens": "MODEL_STEP",
}
SETUP = """
gen = torch.Generator().manual_seed(1)
gelu_input = torch.randn(4, 64, 1536, generator=gen) * 3
gelu_grad = torch.randn(4, 64, 1536, generator=gen)
"""


def model_parts() -> tuple[str, str, str]:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from models import MODELS, split
    return split((MODELS / "nanogpt.py").read_text())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from peer import real_torch
    real = real_torch()
    if real is not None:
        real.set_num_threads(1)
    from engine import compat, random_pytorch
    from engine.ops import special
    c_random, c_special = random_pytorch._native, special._native
    if c_random is None or c_special is None:
        print(f"the C loops are off here: random {random_pytorch.native_status}; erf/GELU: numpy")
    with compat.installed():
        import torch as facade
    runners = {"torch": real, "C": facade, "numpy": facade}
    if real is None:
        del runners["torch"]

    def switch(name):
        on = name == "C"
        random_pytorch._native = c_random if on else None
        special.use_native(c_special if on else None)

    head, model_setup, model_step = model_parts()
    codes = {case: {"MODEL_SETUP": model_setup, "MODEL_STEP": model_step}.get(code, code)
             for case, code in CASES.items()}
    best = {case: {name: float("inf") for name in runners} for case in CASES}
    namespaces = {}
    for name, module in runners.items():
        namespaces[name] = {"torch": module, "__name__": "__main__"}
        with compat.installed() if name != "torch" else _nothing(), contextlib.redirect_stdout(io.StringIO()):
            exec(SETUP, namespaces[name])
            exec(compile(head, "<model>", "exec"), namespaces[name])
            exec(compile(model_setup, "<setup>", "exec"), namespaces[name])
    for _ in range(args.repeat):                   # rounds interleave the runners: load hits them alike
        for case, code in codes.items():
            compiled = compile(code, "<case>", "exec")
            for name in runners:
                switch(name)
                with compat.installed() if name != "torch" else _nothing(), contextlib.redirect_stdout(io.StringIO()):
                    t0 = time.perf_counter()
                    exec(compiled, dict(namespaces[name]))
                    best[case][name] = min(best[case][name], time.perf_counter() - t0)
    switch("C")
    load = os.getloadavg()
    print(f"load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} on {os.cpu_count()} cores; best of {args.repeat}")
    header = "".join(f"{n:>9}" for n in runners)
    print(f"{'case':<92}{header}  C/torch  numpy/torch")
    for case in CASES:
        row = best[case]
        ratios = (f"  {row['C'] / row['torch']:>6.2f}x  {row['numpy'] / row['torch']:>10.2f}x" if "torch" in row else "")
        print(f"{case:<92}" + "".join(f"{row[n]:>9.4f}" for n in runners) + ratios)


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


if __name__ == "__main__":
    main()
