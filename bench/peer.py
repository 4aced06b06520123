"""The optional peer the benchmarks compare with: real PyTorch, when it is installed."""


def real_torch():
    """PyTorch if the real one is installed (not Dagscope's facade), else None."""
    try:
        import torch
    except Exception:
        return None
    return None if "engine" in (getattr(torch, "__file__", "") or "") else torch
