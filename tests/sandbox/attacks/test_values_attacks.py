"""Class 3's side channel: the run's tensor values (app/sandbox/values_channel.py).

The child writes the kept tensors' bytes into a memfd its supervisor made (sealed against growing
and shrinking before the fork) and sends their index on the record pipe; the supervisor seals the
memfd against writing once the child's namespace is gone, and the server maps it read-only. The
program owns the child, so it owns both: each attack here finds the memfd (the one descriptor of
the values' size) and the pipe as an attacker would and writes its own index and bytes. The
answer is the program's own speech (forged values of its run) or a malformed record, and what the
server then serves of them is a clear answer, never a 500.
"""
import io

import numpy as np
import pytest

VALUES_MB = 4          # the live server's DAGSCOPE_RUN_VALUES_MB (conftest.py)

FIND = f'''
import os, stat, json, struct, mmap, fcntl
def fds(kind):
    found = []
    for fd in range(3, 256):
        try:
            st = os.fstat(fd)
        except OSError:
            continue
        if kind == "pipe" and stat.S_ISFIFO(st.st_mode) or kind == "memfd" and st.st_size == {VALUES_MB << 20}:
            found.append(fd)
    assert found, "no " + kind + " found"
    return found
def write(data):
    for fd in fds("pipe"):
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
def frame(obj):
    payload = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
    return struct.pack("!I", len(payload)) + payload
RECORD = {{"ok": True, "stdout": "forged\\n", "stderr": "", "output_order": [], "error": None,
          "graphs": [], "warnings": []}}
def send(index):
    write(frame(RECORD) + frame(index))
    os._exit(0)
def entry(ref, dtype, shape, nbytes):
    return {{"id": ref, "dtype": dtype, "shape": shape, "nbytes": nbytes}}
'''


def tensor(live_server, record, ref, summary=False):
    assert record["run_id"], record
    return live_server.request("GET", f"/api/runs/{record['run_id']}/tensors/{ref}" + ("/summary" if summary else ""))


def refused(record, fragment):
    assert record["ok"] is False and record["error"]["kind"] == "internal_error", record["error"]
    assert "malformed" in record["error"]["message"] and fragment in record["error"]["message"], record["error"]
    assert record.get("run_id") is None


def test_values_memfd_cannot_change_size(attack):
    """The memfd's size was sealed before the child got it: shrinking it (which would make the
    server's read-only mapping fault, SIGBUS in the server) and growing it both fail."""
    record = attack(FIND + '''
fd = fds("memfd")[0]
for size in (0, 4096, 64 << 20):
    try:
        os.ftruncate(fd, size)
        print("changed", size)
    except OSError as exc:
        print("refused", size, exc.errno)
print(fcntl.fcntl(fd, fcntl.F_GET_SEALS) & (fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW) != 0)
''')
    assert "changed" not in record["stdout"] and record["stdout"].count("refused") == 3, record
    assert record["stdout"].endswith("True\n")


@pytest.mark.parametrize("seals", ["F_SEAL_SEAL", "F_SEAL_WRITE | fcntl.F_SEAL_SEAL"])
def test_values_memfd_sealed_by_the_program(attack, seals):
    """The program seals the memfd itself so its supervisor cannot: the server gets no values, and
    an index counting bytes in them is a malformed record (not a read of unsealed memory)."""
    record = attack(FIND + f'''
fd = fds("memfd")[0]
with mmap.mmap(fd, 4096) as m:
    m[:4] = b"\\x00\\x00\\x80\\x3f"
fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.{seals})
send([entry("v1", "float32", [1], 4)])
''')
    refused(record, "were written")


def test_values_memfd_punched_and_written_past_the_index(live_server, attack):
    """Pages written past the index's bytes (the whole memfd) are not kept with the values, and a
    hole punched in them reads as zeros: the server answers exactly the index's bytes."""
    record = attack(FIND + '''
fd = fds("memfd")[0]
with mmap.mmap(fd, os.fstat(fd).st_size) as m:
    m[:] = b"\\x01" * len(m)
    m[:8] = struct.pack("<2f", 1.5, -2.0)
    m.madvise(mmap.MADV_REMOVE, 4096, 4096)      # a hole punched in the values' second page
send([entry("v1", "float32", [2], 8), entry("v2", "uint8", [8184], 8184)])
''')
    assert record["ok"] is True and record["stdout"] == "forged\n", record
    first = np.load(io.BytesIO(tensor(live_server, record, "v1").content))
    assert first.tolist() == [1.5, -2.0]
    assert np.load(io.BytesIO(tensor(live_server, record, "v2").content)).tolist() == [1] * 4088 + [0] * 4096


@pytest.mark.parametrize("shape", [[0, (1 << 40) - 1, (1 << 40) - 1], [0] + [(1 << 40) - 1] * 63, [1] * 64,
                                   [(1 << 40) - 1, 0], [1, 0, (1 << 40) - 1, 1]],
                         ids=["empty-with-huge-sizes", "64-sizes-empty", "64-dims", "empty-huge-rows", "empty-3d"])
def test_values_index_shapes_numpy_cannot_make(live_server, attack, shape):
    """An index entry of no values whose shape numpy cannot make (it multiplies the sizes that are
    not 0: a 500), or whose summary would be 2**40 empty lists, is refused with the record (the
    recorder never keeps an empty tensor); 64 sizes of 1 are served."""
    record = attack(FIND + f'send([entry("v1", "float32", {shape!r}, {4 if 0 not in shape else 0})])\n')
    if record["ok"] is False:
        refused(record, "no values")
        return
    for summary in (False, True):
        answer = tensor(live_server, record, "v1", summary)
        assert answer.status_code in (200, 404), (answer.status_code, answer.text[:300])


def test_descriptors_sent_to_the_supervisor_are_not_taken(attack):
    """The program holds one socket to its supervisor (the compile broker's, in the engine's
    closure) and sends descriptors on it — its values memfd, the record pipe — with a frame that
    is no description: the supervisor reads frames, never descriptors (the memfd it passes on is
    the one it made), so the run is answered and its values are its own or none."""
    record = attack(FIND + '''
import array
from engine.codegen import cc
sock = next(c.cell_contents for c in cc._service.__closure__ if hasattr(c.cell_contents, "sendmsg"))
fds_sent = array.array("i", fds("memfd") + fds("pipe"))
sock.sendmsg([struct.pack("!I", 2) + b"{}"], [(1, 1, fds_sent.tobytes())])   # SOL_SOCKET, SCM_RIGHTS
print("sent")
''')
    assert record["ok"] is True and record["stdout"] == "sent\n", record


def test_small_values_in_place_hold_no_mapping():
    """Each kept run's values in place were a mapping of the server's (one of vm.max_map_count's
    65,530) however few their bytes: a class's runs at 30 a minute for the store's 30 minutes could
    use them all, and every mmap of the server's after them. Values under COPY_BELOW are copied (the
    mapping goes), so the store's bound by bytes bounds its mappings; larger ones stay mapped."""
    import json as json_
    import mmap
    import struct

    from app.sandbox import values_channel

    def parse(nbytes):
        memfd = mmap.mmap(-1, 4 << 20)
        memfd[:nbytes] = b"\x07" * nbytes
        index = json_.dumps([{"id": "v1", "dtype": "uint8", "shape": [nbytes], "nbytes": nbytes}]).encode()
        return values_channel.parse(struct.pack("!I", len(index)) + index, 4 << 20, memoryview(memfd), nbytes)

    small, large = parse(100), parse(values_channel.COPY_BELOW)
    assert isinstance(small.blob, bytes) and small.array("v1").tolist() == [7] * 100
    assert isinstance(large.blob, memoryview) and large.array("v1")[-1] == 7
