"""`torch.distributed`, as a program that can run on one process or many sees it on one: importable,
with no process group. A run is one sandboxed process (compat/scope.py: out of scope), so
init_process_group refuses, and the calls that need a group fail as PyTorch's do without one."""
from engine.compat.scope import sentence as _sentence
from engine.compat.torch._surface import unsupported_getattr as _unsupported_getattr
from engine.errors import UnsupportedError as _UnsupportedError

_NO_GROUP = "Default process group has not been initialized, please make sure to call init_process_group."


def is_available() -> bool:
    """False: Dagscope cannot start a process group (PyTorch says True when built with distributed support)."""
    return False


def is_initialized() -> bool:
    return False


def is_nccl_available() -> bool:
    return False


def is_gloo_available() -> bool:
    return False


def is_torchelastic_launched() -> bool:
    return False


def init_process_group(backend=None, *args, **kwargs):
    raise _UnsupportedError("torch.distributed.init_process_group: Dagscope cannot start a process group. "
                            f"{_sentence('torch.distributed')} Run the program as one process (nanoGPT and "
                            "the like do when RANK is not set).")


def destroy_process_group(group=None) -> None:
    raise AssertionError("Process group cannot be None")


def _needs_a_group(name: str):
    def call(*args, **kwargs):
        raise ValueError(_NO_GROUP)
    call.__name__ = call.__qualname__ = name
    call.__doc__ = "Needs a process group, which a run never has: fails as PyTorch does without one."
    return call


get_rank, get_world_size, barrier, all_reduce, all_gather, broadcast, reduce, new_group = (
    _needs_a_group(n) for n in ("get_rank", "get_world_size", "barrier", "all_reduce", "all_gather", "broadcast",
                                "reduce", "new_group"))

__getattr__ = _unsupported_getattr("torch.distributed", globals())
