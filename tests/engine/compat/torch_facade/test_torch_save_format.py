"""torch.save / torch.load in PyTorch's zip format (issue 19): Dagscope reads what real PyTorch
saved (torch_files/, recorded by record_torch_files.py, so this runs without PyTorch), real
PyTorch's torch.load(weights_only=True) reads what Dagscope saved (where PyTorch is installed),
and a hostile file is refused by the weights-only unpickler with a message, never run."""
import io
import json
import os
import pickle
import struct
import zipfile
from pathlib import Path

import numpy as np
import pytest

from engine.compat import torch_dtypes
from engine.compat.torch import _serialization as ser
from engine.compat.torch_device import device
from engine.compat.torch_size import Size
from engine.nn.parameter import Parameter
from engine.tensor import Tensor
from tests.conftest import real_torch_installed

FILES = Path(__file__).resolve().parent / "torch_files"
EXPECTED = json.loads((FILES / "expected.json").read_text())


def described(value):
    """record_torch_files.described, of Dagscope's objects."""
    if isinstance(value, Tensor):
        return {"tensor": torch_dtypes.from_numpy(value.array.dtype).name, "shape": list(value.shape),
                "values": value.array.reshape(-1).tolist(), "parameter": isinstance(value, Parameter),
                "requires_grad": value.requires_grad}
    if isinstance(value, dict):
        return {"dict": [[k, described(v)] for k, v in value.items()]}
    if isinstance(value, Size):
        return {"size": list(value)}
    if isinstance(value, (list, tuple)):
        return {type(value).__name__: [described(v) for v in value]}
    if isinstance(value, torch_dtypes.dtype):
        return {"dtype": repr(value)}
    if isinstance(value, device):
        return {"device": str(value)}
    if isinstance(value, bytes):
        return {"bytes": list(value)}
    return {"value": value}


@pytest.mark.parametrize("name", sorted(EXPECTED["files"]))
def test_dagscope_reads_what_pytorch_saved(name):
    loaded = ser.load(FILES / name)
    assert described(loaded) == EXPECTED["files"][name]
    if name == "state_dict.pt":           # the modules' versions ride along, as PyTorch keeps them
        assert loaded._metadata["1"] == {"version": 2}


def test_a_dtype_dagscope_lacks_is_named():
    with pytest.raises(RuntimeError, match="torch.BFloat16Storage"):
        ser.load(FILES / "bfloat16.pt")


def _saved(obj, name="model.pt", tmp_path=None) -> bytes:
    buffer = io.BytesIO()
    ser.save(obj, buffer)
    return buffer.getvalue()


def _objects():
    from engine.compat import torch as dtorch
    dtorch.manual_seed(0)
    model = dtorch.nn.Sequential(dtorch.nn.Linear(3, 4), dtorch.nn.BatchNorm1d(4), dtorch.nn.ReLU())
    model(dtorch.randn(5, 3)).sum().backward()
    base = dtorch.arange(12, dtype=dtorch.float64)
    return {"state_dict": model.state_dict(),
            "kinds": {"int64_transposed": dtorch.arange(6).reshape(2, 3).T, "bool": dtorch.tensor([True, False]),
                      "float16": dtorch.tensor([0.5, -2.0], dtype=dtorch.float16), "scalar": dtorch.tensor(3.25),
                      "empty": dtorch.zeros(0, 3), "uint8": dtorch.tensor([0, 255], dtype=dtorch.uint8),
                      "parameter": dtorch.nn.Parameter(dtorch.ones(2)), "dtype": dtorch.float64,
                      "size": dtorch.Size([2, 3]), "device": dtorch.device("cpu"), "plain": [1, "x", None, (2,)],
                      "grad": dtorch.ones(2, requires_grad=True) * 2},
            "tied": {"a": base, "b": base[2:5], "same": base}}


def test_the_archive_is_laid_out_as_pytorch_writes_it(tmp_path):
    path = tmp_path / "weights.pt"
    ser.save(_objects()["state_dict"], path)
    raw = path.read_bytes()
    with zipfile.ZipFile(path) as archive:
        names = archive.namelist()
        assert names == ["weights/data.pkl", "weights/.format_version", "weights/.storage_alignment",
                         "weights/byteorder", *[f"weights/data/{i}" for i in range(7)], "weights/version",
                         "weights/.data/serialization_id"]
        assert archive.read("weights/byteorder") == b"little" and archive.read("weights/version") == b"3\n"
        assert len(archive.read("weights/.data/serialization_id")) == 40
        for info in archive.infolist():
            assert info.compress_type == zipfile.ZIP_STORED
            name_len, extra_len = struct.unpack("<HH", raw[info.header_offset + 26:info.header_offset + 30])
            assert (info.header_offset + 30 + name_len + extra_len) % 64 == 0, info.filename
    ser.save(_objects()["state_dict"], tmp_path / "again.pt")        # the same values: the same id
    with zipfile.ZipFile(tmp_path / "again.pt") as again, zipfile.ZipFile(path) as first:
        assert again.read("again/.data/serialization_id") == first.read("weights/.data/serialization_id")


def test_dagscope_reads_back_what_it_saved():
    objects = _objects()
    loaded = ser.load(io.BytesIO(_saved(objects)))
    assert described(loaded) == described(objects) | {"dict": [
        [k, described(v) if k != "kinds" else described(
            {**objects["kinds"], "grad": Tensor(objects["kinds"]["grad"].array).requires_grad_(True)})]
        for k, v in objects.items()]}
    assert loaded["state_dict"]._metadata == objects["state_dict"]._metadata
    assert loaded["kinds"]["grad"].grad_fn is None and loaded["kinds"]["grad"].requires_grad   # a leaf now
    # one storage for the same memory (a tied weight), a view of its own
    with zipfile.ZipFile(io.BytesIO(_saved(objects["tied"]))) as archive:
        assert [n for n in archive.namelist() if "/data/" in n] == ["archive/data/0", "archive/data/1"]


@pytest.mark.skipif(not real_torch_installed(), reason="real PyTorch (the oracle) is not installed")
def test_pytorch_reads_what_dagscope_saved():
    """(Importing PyTorch is most of its time, 5-20 s when it is the first oracle test to.)"""
    import torch
    objects = _objects()
    loaded = torch.load(io.BytesIO(_saved(objects)), weights_only=True)
    for group in ("state_dict", "kinds"):
        for key, ours in objects[group].items():
            theirs = loaded[group][key]
            if isinstance(ours, Tensor):
                assert str(theirs.dtype) == repr(torch_dtypes.from_numpy(ours.array.dtype)), key
                np.testing.assert_array_equal(theirs.detach().numpy(), ours.array)
                assert isinstance(theirs, torch.nn.Parameter) == isinstance(ours, Parameter), key
                assert theirs.requires_grad == ours.requires_grad, key
            else:
                assert str(theirs) == str(ours), key
    assert loaded["state_dict"]._metadata == objects["state_dict"]._metadata
    assert loaded["tied"]["a"].untyped_storage().data_ptr() == loaded["tied"]["same"].untyped_storage().data_ptr()
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4), torch.nn.ReLU())
    model.load_state_dict(loaded["state_dict"])


# -- hostile files ---------------------------------------------------------------------------------

def _text(s: str) -> bytes:
    data = s.encode()
    return b"X" + struct.pack("<I", len(data)) + data


def _int(n: int) -> bytes:
    data = n.to_bytes(n.bit_length() // 8 + 1, "little", signed=True)
    return b"\x8a" + bytes([len(data)]) + data          # LONG1: any integer


def _global(module: str, name: str) -> bytes:
    return b"c" + f"{module}\n{name}\n".encode()


def _file(pkl: bytes, storages: dict | None = None, compress=zipfile.ZIP_STORED) -> io.BytesIO:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compress) as archive:
        archive.writestr("archive/data.pkl", pkl)
        archive.writestr("archive/byteorder", "little")
        for key, data in (storages or {}).items():
            archive.writestr(f"archive/data/{key}", data)
    out.seek(0)
    return out


def _tensor(key="0", numel=4, offset=0, size=(2, 2), stride=(2, 1), storage="FloatStorage") -> bytes:
    """A pickle of _rebuild_tensor_v2 on a storage, with its numbers as given."""
    tup = lambda items: b"(" + b"".join(_int(i) for i in items) + b"t"     # noqa: E731
    pid = b"(" + _text("storage") + _global("torch", storage) + _text(key) + _text("cpu") + _int(numel) + b"tQ"
    return (b"\x80\x02" + _global("torch._utils", "_rebuild_tensor_v2") + b"(" + pid + _int(offset) + tup(size)
            + tup(stride) + b"\x89" + _global("collections", "OrderedDict") + b")Rt" + b"R.")


def test_a_well_formed_hand_made_file_loads():
    t = ser.load(_file(_tensor(), {"0": np.arange(4, dtype=np.float32).tobytes()}))
    assert t.array.tolist() == [[0, 1], [2, 3]]
    t = ser.load(_file(_tensor(offset=1, size=(3,), stride=(1,)), {"0": np.arange(4, dtype=np.float32).tobytes()}))
    assert t.array.tolist() == [1, 2, 3]


@pytest.mark.parametrize("module, name", [("os", "system"), ("posix", "system"), ("builtins", "eval"),
                                          ("builtins", "getattr"), ("subprocess", "Popen"),
                                          ("engine.compat.torch._serialization", "_Unpickler"),
                                          ("__main__", "Net"), ("torch", "load")])
def test_a_global_outside_the_allowlist_is_refused_and_never_called(tmp_path, module, name):
    marker = tmp_path / "ran"
    pkl = b"\x80\x02" + _global(module, name) + b"(" + _text(f"touch {marker}") + b"tR."
    with pytest.raises(pickle.UnpicklingError, match=f"Unsupported global: GLOBAL {module}.{name}"):
        ser.load(_file(pkl))
    assert not marker.exists()


def test_a_program_can_allow_its_own_globals():
    import fractions
    pkl = b"\x80\x02" + _global("fractions", "Fraction") + b"(" + _text("1/3") + b"tR."
    with pytest.raises(pickle.UnpicklingError):
        ser.load(_file(pkl))
    assert ser.load(_file(pkl), weights_only=False) == fractions.Fraction(1, 3)
    ser._allowed.append(fractions.Fraction)
    try:
        assert ser.load(_file(pkl)) == fractions.Fraction(1, 3)
    finally:
        ser._allowed.remove(fractions.Fraction)


FOUR = {"0": np.arange(4, dtype=np.float32).tobytes()}


@pytest.mark.parametrize("pkl, storages, message", [
    (_tensor(offset=1), FOUR, "reaches past its storage"),
    (_tensor(size=(2, 2), stride=(3, 1)), FOUR, "reaches past its storage"),
    (_tensor(size=(1 << 30, 1 << 30), stride=(1 << 30, 1)), FOUR, "reaches past its storage"),
    (_tensor(stride=(-1, 1)), FOUR, "non-negative integers"),
    (_tensor(offset=-4), FOUR, "offset"),
    (_tensor(size=(4,)), FOUR, "1 sizes but 2 strides"),
    (_tensor(key="../../../etc/passwd"), FOUR, "is not a number"),
    (_tensor(key="7"), FOUR, "failed locating file data/7"),
    (_tensor(numel=1 << 40), FOUR, "holds 16 bytes"),
    (_tensor(numel=-1), FOUR, "non-negative"),
    (_tensor(storage="UntypedStorage"), FOUR, "torch.UntypedStorage"),
    (_tensor(storage="system"), FOUR, "Unsupported global: GLOBAL torch.system"),
    (b"\x80\x02" + b"(" + _text("storage") + b"tQ.", {}, "unknown persistent id"),
    (b"\x80\x02" + _global("torch._utils", "_rebuild_tensor_v2") + b"(" + _text("x") + _int(0) + b")" + b")"
     + b"\x89N" + b"tR.", {}, "not a storage"),
    (b"\x80\x02" + _global("_codecs", "encode") + b"(" + _text("abc") + _text("rot13") + b"tR.", {}, "latin-1"),
])
def test_hostile_contents_are_refused_with_a_message(pkl, storages, message):
    with pytest.raises((pickle.UnpicklingError, RuntimeError), match=message):
        ser.load(_file(pkl, storages))


def test_a_storage_that_inflates_past_what_it_declared_is_not_read_whole():
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("archive/data.pkl", _tensor())
        archive.writestr("archive/data/0", b"\0" * (8 << 20))            # 8 MB of zeros, 8 kB deflated
    raw = bytearray(out.getvalue())
    # declare 16 bytes in both headers: a reader trusting the data would inflate all of it
    for sig in (b"PK\x03\x04", b"PK\x01\x02"):
        at = 0
        while (at := raw.find(sig, at)) >= 0:
            size_at = at + (22 if sig == b"PK\x03\x04" else 24)
            name_len = struct.unpack("<H", raw[at + (26 if sig == b"PK\x03\x04" else 28):][:2])[0]
            name = bytes(raw[at + (30 if sig == b"PK\x03\x04" else 46):][:name_len])
            if name.endswith(b"data/0"):
                raw[size_at:size_at + 4] = struct.pack("<I", 16)
            at += 4
    with pytest.raises((pickle.UnpicklingError, RuntimeError, zipfile.BadZipFile, OSError)):
        ser.load(io.BytesIO(bytes(raw)))


@pytest.mark.parametrize("data, message", [(pickle.dumps({"a": 1}), "not a zip archive"),
                                           (b"PK\x03\x04garbage", "failed reading zip archive"),
                                           (_file(b"\x80\x02N.").getvalue().replace(b"data.pkl", b"nope.pkl"),
                                            "data.pkl")])
def test_files_that_are_not_pytorch_archives_say_so(data, message):
    with pytest.raises(RuntimeError, match=message):
        ser.load(io.BytesIO(data))
