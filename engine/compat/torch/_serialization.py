"""torch.save / torch.load in PyTorch's own file format, so that real PyTorch opens what a run saved
(`torch.load(f, weights_only=True)`) and a run opens what PyTorch saved.

The format (torch/serialization.py, caffe2/serialize/inline_container.cc, PyTorch 1.6+): a zip
archive of stored (uncompressed) records under one folder (the file's name without its suffix, or
"archive" for a buffer), each record's bytes starting on a 64-byte boundary:
  data.pkl                 the object, pickled with protocol 2; a tensor is
                           torch._utils._rebuild_tensor_v2(storage, offset, size, stride,
                           requires_grad, OrderedDict()), a Parameter
                           torch._utils._rebuild_parameter(tensor, requires_grad, OrderedDict()),
                           and a storage is the persistent id
                           ("storage", torch.FloatStorage, "<key>", "cpu", numel)
  .format_version "1", .storage_alignment "64", byteorder "little"
  data/<key>               each storage's bytes
  version "3\n", .data/serialization_id
Tensors are saved with their values only (no autograd history, as PyTorch saves them); each gets a
storage of its own, one shared by tensors that are the same view of the same memory (tied weights).

Loading is PyTorch 2.6+'s default weights_only=True: a restricted unpickler that rebuilds tensors,
parameters, dtypes, sizes, devices and the standard containers, and refuses every other global
(torch.serialization.add_safe_globals allows more); whatever the file says is checked before it is
used (a tensor's offset, sizes and strides within its storage, a storage's bytes its numel times
its dtype's size). weights_only=False unpickles anything, as PyTorch's does: only for trusted files.
"""
from __future__ import annotations

import _compat_pickle
import builtins
import codecs
import collections
import hashlib
import io
import os
import pickle
import struct
import zipfile

import numpy as np

from engine.compat import torch_dtypes
from engine.compat.torch_device import device
from engine.compat.torch_size import Size
from engine.nn.parameter import Parameter
from engine.tensor import Tensor

# PyTorch's storage classes by the numpy dtype of their elements (torch/storage.py's names).
_STORAGES = {"HalfStorage": np.float16, "FloatStorage": np.float32, "DoubleStorage": np.float64,
             "CharStorage": np.int8, "ByteStorage": np.uint8, "ShortStorage": np.int16, "IntStorage": np.int32,
             "LongStorage": np.int64, "BoolStorage": np.bool_}
_STORAGE_OF = {np.dtype(t): name for name, t in _STORAGES.items()}
# PyTorch's storages Dagscope has no numpy dtype for: named, so loading says which.
_FOREIGN_STORAGES = ("BFloat16Storage", "ComplexFloatStorage", "ComplexDoubleStorage", "QInt8Storage",
                     "QUInt8Storage", "QInt32Storage", "Float8_e4m3fnStorage", "Float8_e5m2Storage",
                     "UntypedStorage")
ALIGNMENT = 64
MAX_RANK = 64


class _Global:
    """A name PyTorch's pickles refer to (`torch._utils _rebuild_tensor_v2`), written as a GLOBAL
    opcode by name: the run's `torch` is not PyTorch, so pickle could not look the real one up."""
    _made: dict = {}

    def __new__(cls, module: str, name: str):
        found = cls._made.get((module, name))
        if found is None:
            found = cls._made[(module, name)] = super().__new__(cls)
            found.module, found.name = module, name
        return found

    def __call__(self, *args):          # pickle's reduce wants a callable; this one is only a name
        raise TypeError(f"{self.module}.{self.name} is a name for pickle, not a function")


class _Storage:
    """One storage to write: a tensor's values, contiguous, under its key."""

    def __init__(self, key: str, array: np.ndarray):
        self.key, self.array = key, array


class _TensorData:
    """A Parameter's data: pickled as the plain tensor inside _rebuild_parameter."""

    def __init__(self, tensor: Tensor):
        self.tensor = tensor


class _Pickler(pickle._Pickler):
    """pickle's Python pickler (its save_global can be given names), writing PyTorch's reductions."""

    def __init__(self, file):
        super().__init__(file, protocol=2)
        self.storages: list[_Storage] = []
        self._by_memory: dict = {}
        self._keep: list = []           # what the memo's ids refer to stays alive while pickling

    def persistent_id(self, obj):
        if isinstance(obj, _Storage):
            return ("storage", _Global("torch", _STORAGE_OF[obj.array.dtype]), obj.key, "cpu", obj.array.size)
        return None

    def reducer_override(self, obj):
        if isinstance(obj, _Global):
            return obj.name
        if isinstance(obj, torch_dtypes.dtype):
            return obj.name                             # -> save_global: GLOBAL torch <name>
        if isinstance(obj, Parameter):
            data = _TensorData(obj)
            self._keep.append(data)
            return _Global("torch._utils", "_rebuild_parameter"), (data, obj.requires_grad, collections.OrderedDict())
        if isinstance(obj, Tensor):
            return self._tensor(obj, obj.requires_grad)
        if isinstance(obj, _TensorData):
            return self._tensor(obj.tensor, False)
        if isinstance(obj, Size):
            return _Global("torch", "Size"), (tuple(int(d) for d in obj),)
        if isinstance(obj, device):
            return _Global("torch", "device"), (str(obj),)
        return NotImplemented

    def save_global(self, obj, name=None):
        if isinstance(obj, _Global):
            module, name = obj.module, obj.name
        elif isinstance(obj, torch_dtypes.dtype):
            module, name = "torch", obj.name
        else:
            return super().save_global(obj, name)
        self.write(pickle.GLOBAL + f"{module}\n{name}\n".encode("utf-8"))
        self.memoize(obj)

    def _tensor(self, tensor: Tensor, requires_grad: bool):
        array = tensor.array
        if array.dtype not in _STORAGE_OF:
            raise pickle.PicklingError(f"torch.save: tensors of {array.dtype} cannot be saved in PyTorch's format")
        memory = (array.__array_interface__["data"][0], array.dtype.str, array.shape, array.strides)
        storage = self._by_memory.get(memory)
        if storage is None:
            storage = _Storage(str(len(self.storages)), np.ascontiguousarray(array).reshape(-1))
            self.storages.append(storage)
            self._by_memory[memory] = storage
            self._keep.append(array)
        shape = tuple(int(d) for d in array.shape)
        stride, step = [], 1
        for size in reversed(shape):                  # C order, in elements (PyTorch's contiguous strides)
            stride.append(step)
            step *= max(size, 1)
        return _Global("torch._utils", "_rebuild_tensor_v2"), (
            storage, 0, shape, tuple(reversed(stride)), bool(requires_grad), collections.OrderedDict())


# -- writing the archive ---------------------------------------------------------------------------

def _archive_name(f) -> str:
    if isinstance(f, (str, os.PathLike)):
        stem = os.path.splitext(os.path.basename(os.fspath(f)))[0]
        return stem or "archive"
    return "archive"


def _zip(prefix: str, records: list[tuple[str, bytes]]) -> bytes:
    """A stored zip whose every record's bytes start on an ALIGNMENT boundary (padding in an
    extra field named "FB", as PyTorch's writer pads)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as archive:
        for name, data in records:
            info = zipfile.ZipInfo(f"{prefix}/{name}", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_STORED
            header = out.tell() + 30 + len(info.filename.encode("utf-8")) + 4
            pad = -header % ALIGNMENT
            info.extra = b"FB" + struct.pack("<H", pad) + b"Z" * pad
            archive.writestr(info, data)
    return out.getvalue()


def save(obj, f, pickle_module=None, pickle_protocol: int = 2, _use_new_zipfile_serialization: bool = True,
         **_) -> None:
    buffer = io.BytesIO()
    pickler = _Pickler(buffer)
    pickler.dump(obj)
    storages = [(f"data/{s.key}", s.array.astype(s.array.dtype.newbyteorder("<"), copy=False).tobytes())
                for s in pickler.storages]
    pkl = buffer.getvalue()
    # PyTorch draws a random id; this one is the content's, so saving the same values twice gives the
    # same file (a run prints the same every time it runs)
    digest = hashlib.sha256(pkl + b"".join(data for _, data in storages)).digest()
    serialization_id = str(int.from_bytes(digest[:17], "big")).zfill(40)[:40]
    records = [("data.pkl", pkl), (".format_version", b"1"), (".storage_alignment", str(ALIGNMENT).encode()),
               ("byteorder", b"little"), *storages, ("version", b"3\n"),
               (".data/serialization_id", serialization_id.encode())]
    payload = _zip(_archive_name(f), records)
    if isinstance(f, (str, os.PathLike)):
        with builtins.open(f, "wb") as handle:
            handle.write(payload)
    else:
        f.write(payload)


# -- reading it ------------------------------------------------------------------------------------

class _StorageType:
    """torch.FloatStorage and its kin as a pickle names them: which dtype a storage's bytes hold."""

    def __init__(self, name: str):
        self.name = name


class _LoadedStorage:
    def __init__(self, array: np.ndarray):
        self.array = array


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks, metadata=None):
    if not isinstance(storage, _LoadedStorage):
        raise pickle.UnpicklingError("_rebuild_tensor_v2: its first argument is not a storage of this file")
    size, stride = _dims(size, "size"), _dims(stride, "stride")
    if len(size) != len(stride):
        raise pickle.UnpicklingError(f"_rebuild_tensor_v2: {len(size)} sizes but {len(stride)} strides")
    if type(storage_offset) is not builtins.int or storage_offset < 0:
        raise pickle.UnpicklingError(f"_rebuild_tensor_v2: storage offset {storage_offset!r} is not a "
                                     "non-negative integer")
    array = storage.array
    if 0 in size:
        values = np.zeros(size, dtype=array.dtype)
    else:
        last = storage_offset + sum((n - 1) * s for n, s in zip(size, stride))
        if last >= array.size:
            raise pickle.UnpicklingError(f"_rebuild_tensor_v2: a tensor of size {list(size)}, stride {list(stride)} "
                                         f"and offset {storage_offset} reaches past its storage of {array.size} "
                                         "elements")
        values = np.lib.stride_tricks.as_strided(array[storage_offset:], shape=size,
                                                 strides=[s * array.itemsize for s in stride], writeable=False).copy()
    tensor = Tensor(values)
    if requires_grad is True:
        tensor.requires_grad_(True)          # a saved non-leaf loads as a leaf, as in PyTorch
    return tensor


def _dims(value, what: str) -> tuple:
    if not isinstance(value, tuple) or len(value) > MAX_RANK or not all(
            type(d) is builtins.int and d >= 0 for d in value):
        raise pickle.UnpicklingError(f"_rebuild_tensor_v2: its {what} {value!r} is not a tuple of at most "
                                     f"{MAX_RANK} non-negative integers")
    return value


def _rebuild_parameter(data, requires_grad, backward_hooks):
    if not isinstance(data, Tensor):
        raise pickle.UnpicklingError("_rebuild_parameter: its data is not a tensor")
    return Parameter(data, requires_grad=builtins.bool(requires_grad))


def _encode(text, encoding="utf-8"):
    """_codecs.encode, as protocol 2 pickles bytes (latin-1 text): only that."""
    if not isinstance(text, str) or encoding not in ("latin1", "latin-1"):
        raise pickle.UnpicklingError("_codecs.encode is allowed only to make bytes from latin-1 text")
    return codecs.encode(text, "latin1")


def _torch_global(module: str, name: str):
    """What a name in PyTorch's pickles is in Dagscope, or None."""
    if module == "torch._utils":
        return {"_rebuild_tensor_v2": _rebuild_tensor_v2, "_rebuild_parameter": _rebuild_parameter}.get(name)
    if module == "torch":
        if name in _STORAGES or name in _FOREIGN_STORAGES:
            return _StorageType(name)
        if name == "Size":
            return Size
        if name == "device":
            return device
        found = getattr(torch_dtypes, name, None)
        return found if isinstance(found, torch_dtypes.dtype) else None
    if (module, name) == ("torch.nn.parameter", "Parameter"):
        return Parameter
    return None


# What weights_only=True may rebuild besides PyTorch's own names: the standard containers and values.
_SAFE = {("collections", "OrderedDict"): collections.OrderedDict, ("builtins", "set"): set,
         ("builtins", "frozenset"): frozenset, ("builtins", "complex"): complex, ("builtins", "slice"): slice,
         ("builtins", "bytearray"): bytearray, ("_codecs", "encode"): _encode}

# What the program allowed besides (torch.serialization.add_safe_globals, or inside safe_globals(...)).
_allowed: list = []


def _key(obj) -> tuple[str, str]:
    return getattr(obj, "__module__", None), getattr(obj, "__qualname__", getattr(obj, "__name__", None))


def _refused(module: str, name: str) -> pickle.UnpicklingError:
    return pickle.UnpicklingError(
        "Weights only load failed. This file can still be loaded, to do so you have two options, do those "
        "steps only if you trust the source of the checkpoint. \n\t(1) In PyTorch 2.6, we changed the "
        "default value of the `weights_only` argument in `torch.load` from `False` to `True`. Re-running "
        "`torch.load` with `weights_only` set to `False` will likely succeed, but it can result in "
        "arbitrary code execution. Do it only if you got the file from a trusted source.\n\t(2) "
        "Alternatively, to load with `weights_only=True` please check the recommended steps in the "
        f"following error message.\n\tWeightsUnpickler error: Unsupported global: GLOBAL {module}.{name} was "
        "not an allowed global by default.")


class _Unpickler(pickle.Unpickler):
    """data.pkl's unpickler: PyTorch's names mean Dagscope's tensors; with `weights_only`, nothing
    else but the safe names and what the program allowed."""

    def __init__(self, file, archive: "_Archive", weights_only: bool):
        super().__init__(file)
        self.archive, self.weights_only = archive, weights_only

    def find_class(self, module: str, name: str):
        # torch.save writes protocol 2, whose pickles name Python 2's modules (__builtin__.set);
        # pickle maps them back only in its own find_class, so here, as PyTorch's unpickler does
        if (module, name) in _compat_pickle.NAME_MAPPING:
            module, name = _compat_pickle.NAME_MAPPING[(module, name)]
        elif module in _compat_pickle.IMPORT_MAPPING:
            module = _compat_pickle.IMPORT_MAPPING[module]
        found = _torch_global(module, name)
        if found is not None:
            return found
        if (module, name) in _SAFE:
            return _SAFE[(module, name)]
        for allowed in _allowed:
            if _key(allowed) == (module, name):
                return allowed
        if self.weights_only:
            raise _refused(module, name)
        return super().find_class(module, name)

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage"):
            raise pickle.UnpicklingError(f"unknown persistent id {str(pid)[:100]!r} (PyTorch's are storages)")
        _, kind, key, location, numel = pid
        if not isinstance(kind, _StorageType):
            raise pickle.UnpicklingError("a storage's type is not one of torch's storage classes")
        if kind.name not in _STORAGES:
            raise RuntimeError(f"torch.load: this file holds a torch.{kind.name} (its tensors' dtype), which "
                               "Dagscope cannot hold: numpy has no such type")
        if not isinstance(key, str) or not key.isdigit() or len(key) > 20:
            raise pickle.UnpicklingError(f"a storage's key {str(key)[:40]!r} is not a number")
        if type(numel) is not builtins.int or numel < 0:
            raise pickle.UnpicklingError(f"a storage's size {str(numel)[:40]!r} is not a non-negative integer")
        if isinstance(location, str) and location.startswith("cuda") and self.archive.map_location is None:
            raise RuntimeError("Attempting to deserialize object on a CUDA device but torch.cuda.is_available() "
                               "is False. If you are running on a CPU-only machine, please use torch.load with "
                               "map_location=torch.device('cpu') to map your storages to the CPU.")
        return self.archive.storage(key, np.dtype(_STORAGES[kind.name]), numel)


class _Archive:
    """The records of a PyTorch zip file, read by name (never by a path on disk)."""

    def __init__(self, data: bytes, map_location):
        self.zip = zipfile.ZipFile(io.BytesIO(data))
        names = self.zip.namelist()
        pkls = [n for n in names if n.endswith("/data.pkl") and n.count("/") == 1]
        if not pkls:
            raise RuntimeError("PytorchStreamReader failed locating file data.pkl: file not found")
        self.prefix = pkls[0][:-len("data.pkl")]
        self.map_location = map_location
        self._storages: dict[str, _LoadedStorage] = {}
        order = self._text("byteorder", "little")
        if order not in ("little", "big"):
            raise RuntimeError(f"torch.load: unknown byte order {order[:20]!r}")
        self.big_endian = order == "big"

    def _text(self, name: str, default: str) -> str:
        try:
            info = self.zip.getinfo(self.prefix + name)
        except KeyError:
            return default
        with self.zip.open(info) as handle:
            return handle.read(64).decode("ascii", "replace").strip()

    def pickle(self) -> bytes:
        return self.zip.read(self.prefix + "data.pkl")

    def storage(self, key: str, dtype: np.dtype, numel: int) -> _LoadedStorage:
        found = self._storages.get(key)
        if found is not None:
            if found.array.dtype != dtype or found.array.size != numel:
                raise pickle.UnpicklingError(f"storage {key} is named with two types or sizes")
            return found
        try:
            info = self.zip.getinfo(f"{self.prefix}data/{key}")
        except KeyError:
            raise RuntimeError(f"PytorchStreamReader failed locating file data/{key}: file not found") from None
        want = numel * dtype.itemsize
        if info.file_size != want:
            raise pickle.UnpicklingError(f"storage {key} holds {info.file_size} bytes, not the {want} its "
                                         f"{numel} elements of {dtype} need")
        with self.zip.open(info) as handle:              # never more than it declared (a deflate bomb)
            raw = handle.read(want + 1)
        if len(raw) != want:
            raise pickle.UnpicklingError(f"storage {key} is not the {want} bytes it declared")
        array = np.frombuffer(raw, dtype=dtype.newbyteorder(">" if self.big_endian else "<")).astype(dtype)
        found = self._storages[key] = _LoadedStorage(array)
        return found


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **_):
    if isinstance(f, (str, os.PathLike)):
        with builtins.open(f, "rb") as handle:
            data = handle.read()
    else:
        data = f.read()
    if not data.startswith(b"PK\x03\x04"):
        raise RuntimeError("torch.load: the file is not a zip archive, the format torch.save writes (since "
                           "PyTorch 1.6); Dagscope does not read PyTorch's older format or plain pickles "
                           "(use pickle.load for those)")
    try:
        archive = _Archive(data, map_location)
    except zipfile.BadZipFile as exc:
        raise RuntimeError(f"PytorchStreamReader failed reading zip archive: {exc}") from None
    return _Unpickler(io.BytesIO(archive.pickle()), archive, weights_only is not False).load()
