"""`tf.config` and `tf.device`: the devices a program can see, which are, truthfully, one CPU.

Dagscope runs every program on the server's CPU: `list_physical_devices("GPU")` is empty, so a guide's
`if tf.config.list_physical_devices('GPU'):` takes its CPU branch, as on a machine without a GPU.
`tf.device("GPU:0")` is accepted and its ops run on the CPU, which is what TensorFlow's soft device
placement (on by default) does on such a machine. Settings that only tune TensorFlow's runtime
(threads, op determinism) are kept and read back; Dagscope's ops are deterministic already.
What would need more than one device (virtual devices, memory growth) is out of scope (scope.py).
"""
from __future__ import annotations

import collections
import contextlib
import re
import types

from engine.compat.tensorflow import context
from engine.compat.tensorflow._surface import public_names, unsupported_names

PhysicalDevice = collections.namedtuple("PhysicalDevice", ["name", "device_type"])
LogicalDevice = collections.namedtuple("LogicalDevice", ["name", "device_type"])

_CPU = PhysicalDevice(name="/physical_device:CPU:0", device_type="CPU")
_DEVICE = re.compile(r"^(/job:\w+)?(/replica:\d+)?(/task:\d+)?(/?(device:)?(?P<type>[A-Za-z_]+)(:(?P<n>\d+|\*))?)?$")


def list_physical_devices(device_type=None) -> list:
    """The machine's devices of this type: one CPU, no GPU or TPU."""
    return [_CPU] if device_type is None or str(device_type).upper() == "CPU" else []


def list_logical_devices(device_type=None) -> list:
    return [LogicalDevice(name="/device:CPU:0", device_type="CPU")] if list_physical_devices(device_type) else []


def get_visible_devices(device_type=None) -> list:
    return list_physical_devices(device_type)


def set_visible_devices(devices, device_type=None) -> None:
    """Only the devices there are can be made visible (an empty list hides a GPU there is not: fine)."""
    devices = [devices] if isinstance(devices, PhysicalDevice) else list(devices)
    for d in devices:
        if d not in list_physical_devices(device_type):
            raise ValueError(f"Unrecognized device: {d!r}")
    if device_type in (None, "CPU") and not devices:
        raise ValueError("The CPU cannot be hidden: Dagscope runs every program on it")


def run_functions_eagerly(run_eagerly: bool) -> None:
    """tf.function calls run the Python function itself, op by op, instead of its graph."""
    context.state().functions_eagerly = bool(run_eagerly)


def functions_run_eagerly() -> bool:
    return context.state().functions_eagerly


def _set_threads(which: str):
    def setter(num_threads: int) -> None:
        context.state().threads[which] = int(num_threads)
    return setter


def _get_threads(which: str):
    def getter() -> int:
        return context.state().threads[which]
    return getter


threading = types.ModuleType("engine.compat.tensorflow.config.threading",
                             "Thread pool sizes: kept and read back (Dagscope runs a program's ops one after another).")
threading.set_intra_op_parallelism_threads = _set_threads("intra_op")
threading.set_inter_op_parallelism_threads = _set_threads("inter_op")
threading.get_intra_op_parallelism_threads = _get_threads("intra_op")
threading.get_inter_op_parallelism_threads = _get_threads("inter_op")
threading.__getattr__ = unsupported_names("tf.config.threading", vars(threading))

experimental = types.ModuleType("engine.compat.tensorflow.config.experimental",
                                "tf.config.experimental: the device lists again, and op determinism (Dagscope's ops "
                                "are deterministic).")
experimental.list_physical_devices = list_physical_devices
experimental.list_logical_devices = list_logical_devices
experimental.get_visible_devices = get_visible_devices
experimental.set_visible_devices = set_visible_devices
experimental.enable_op_determinism = lambda: None
experimental.__getattr__ = unsupported_names("tf.config.experimental", vars(experimental))


@contextlib.contextmanager
def device(device_name):
    """`tf.device`: ops inside run on the CPU whatever the name says (TensorFlow's soft placement
    does the same where the named device does not exist); a name that is not a device is an error."""
    if device_name is not None and not callable(device_name) and not _DEVICE.match(str(device_name).strip()):
        raise ValueError(f"Unknown attribute: '{device_name}' in '{device_name}'")
    yield None


__all__ = [n for n in public_names(globals()) if n != "device"]      # tf.device is the top level's
__getattr__ = unsupported_names("tf.config", globals())
