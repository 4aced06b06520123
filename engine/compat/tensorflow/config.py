"""`tf.config` and `tf.device`: the devices a program can see, which are, truthfully, one CPU.

Dagscope runs every program on the server's CPU: `list_physical_devices("GPU")` is empty, so a guide's
`if tf.config.list_physical_devices('GPU'):` takes its CPU branch, as on a machine without a GPU.
`tf.device("GPU:0")` is accepted and its ops run on the CPU, which is what TensorFlow's soft device
placement (on by default) does on such a machine. Settings that only tune TensorFlow's runtime
(threads, op determinism) are kept and read back; Dagscope's ops are deterministic already.
Logical CPUs (`set_logical_device_configuration`, the virtual devices the random-numbers guide makes
for tf.distribute) are kept and listed, as TensorFlow lists them: they are names for the one CPU,
which is what they are in TensorFlow too. tf.distribute itself and memory growth are out of scope (scope.py).
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
    if not list_physical_devices(device_type):
        return []
    st = context.state()
    st.devices_initialized = True           # as TensorFlow's runtime: listing them initializes it
    count = len(st.logical_cpus or [None])
    return [LogicalDevice(name=f"/device:CPU:{i}", device_type="CPU") for i in range(count)]


class LogicalDeviceConfiguration:
    """One logical device to make of a physical one (`tf.config.LogicalDeviceConfiguration`)."""

    def __init__(self, memory_limit=None, experimental_priority=None, experimental_device_ordinal=None):
        self.memory_limit = memory_limit
        self.experimental_priority = experimental_priority
        self.experimental_device_ordinal = experimental_device_ordinal

    def __repr__(self) -> str:
        return (f"LogicalDeviceConfiguration(memory_limit={self.memory_limit}, experimental_priority="
                f"{self.experimental_priority}, experimental_device_ordinal={self.experimental_device_ordinal})")

    def __eq__(self, other) -> bool:
        return isinstance(other, LogicalDeviceConfiguration) and repr(self) == repr(other)


def set_logical_device_configuration(device, logical_devices) -> None:
    """Split the CPU into logical CPUs: list_logical_devices("CPU") then lists /device:CPU:0, 1, ...
    (every op still runs on the one CPU, as in TensorFlow, where they share it too)."""
    if device not in list_physical_devices():
        raise ValueError(f"Unrecognized device: {device!r}")
    if device.device_type != "CPU":
        raise ValueError("Setting memory limit on CPU virtual devices is currently not supported")
    if context.state().devices_initialized:
        raise RuntimeError("Virtual devices cannot be modified after being initialized")
    configs = list(logical_devices or [])
    if any(c.memory_limit is not None for c in configs):
        raise ValueError("Setting memory limit on CPU virtual devices is currently not supported")
    context.state().logical_cpus = configs or None


def get_logical_device_configuration(device):
    if device not in list_physical_devices():
        raise ValueError(f"Unrecognized device: {device!r}")
    return context.state().logical_cpus


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
experimental.set_virtual_device_configuration = set_logical_device_configuration
experimental.get_virtual_device_configuration = get_logical_device_configuration
experimental.VirtualDeviceConfiguration = LogicalDeviceConfiguration
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
