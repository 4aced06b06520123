"""app/sandbox/run_files.py: what the supervisor collects from a run's working folder, on a folder
made here as a hostile run would leave it (the whole path, through a real run, is in
tests/sandbox/attacks/test_file_attacks.py)."""
import os
import stat

import pytest

from app.sandbox import run_files


def _collect(folder, max_count=20, max_bytes=1 << 20, max_file_bytes=1 << 20):
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        return run_files.collect(fd, max_count, max_bytes, max_file_bytes)
    finally:
        os.close(fd)


def _why(found, name):
    return dict(found.left_out).get(name)


def test_regular_files_below_the_folder_come_back_in_name_order(tmp_path):
    (tmp_path / "b.txt").write_bytes(b"bee")
    (tmp_path / "a.npy").write_bytes(b"\x93NUMPY")
    (tmp_path / "ckpt" / "deep").mkdir(parents=True)
    (tmp_path / "ckpt" / "deep" / "w.pt").write_bytes(b"PK")
    (tmp_path / ".kernels").mkdir()                  # the engine's own kernel cache
    (tmp_path / ".kernels" / "k.so").write_bytes(b"\x7fELF")
    found = _collect(tmp_path)
    assert found.files == [("a.npy", b"\x93NUMPY"), ("b.txt", b"bee"), ("ckpt/deep/w.pt", b"PK")]
    assert found.left_out == []
    assert found.index()["files"] == [{"name": "a.npy", "size": 6}, {"name": "b.txt", "size": 3},
                                      {"name": "ckpt/deep/w.pt", "size": 2}]


def test_links_fifos_and_sockets_are_left_out_and_named(tmp_path):
    (tmp_path / "real").write_bytes(b"x")
    os.symlink("/etc/passwd", tmp_path / "passwd")
    os.symlink("/etc", tmp_path / "etc")             # a symlinked folder is not walked into
    os.link(tmp_path / "real", tmp_path / "twin")
    os.mkfifo(tmp_path / "fifo")
    found = _collect(tmp_path)
    assert found.files == []
    assert "symbolic link" in _why(found, "passwd") and "symbolic link" in _why(found, "etc")
    assert "hard link" in _why(found, "real") and "hard link" in _why(found, "twin")
    assert "FIFO" in _why(found, "fifo")


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device node needs root")
def test_a_device_node_is_never_opened(tmp_path):
    os.mknod(tmp_path / "zero", stat.S_IFCHR | 0o666, os.makedev(1, 5))
    found = _collect(tmp_path)
    assert found.files == [] and "character device" in _why(found, "zero")


def test_counts_and_bytes_are_bounded_with_the_reason(tmp_path):
    for i in range(5):
        (tmp_path / f"f{i}").write_bytes(b"x" * 100)
    with open(tmp_path / "sparse", "wb") as f:       # a hole of 1 GB: its size, not its blocks, counts
        f.truncate(1 << 30)
    found = _collect(tmp_path, max_count=3, max_bytes=250, max_file_bytes=1000)
    assert [name for name, _ in found.files] == ["f0", "f1"]          # 250 bytes hold two
    assert "past the 50 bytes left" in _why(found, "f2")
    assert "larger than 1000 bytes" in _why(found, "sparse")
    found = _collect(tmp_path, max_count=3)
    assert [name for name, _ in found.files] == ["f0", "f1", "f2"]
    assert "more than 3 files" in _why(found, "f3")


def test_many_entries_and_deep_folders_are_bounded(tmp_path):
    deep = tmp_path
    for i in range(run_files.MAX_DEPTH + 2):
        deep = deep / f"d{i}"
    deep.mkdir(parents=True)
    (deep / "bottom").write_bytes(b"x")
    found = _collect(tmp_path)
    assert found.files == [] and any("deep" in why for _, why in found.left_out)
    many = tmp_path / "many"
    many.mkdir()
    for i in range(run_files.MAX_ENTRIES_PER_FOLDER + 5):
        (many / f"{i:05}").touch()
    found = _collect(tmp_path, max_count=10)
    assert len(found.files) == 10
    assert len(found.left_out) == run_files.MAX_LEFT_OUT_NAMED and found.more_left_out > 1000
    assert found.index()["more_left_out"] == found.more_left_out


def test_hostile_names_are_shown_safely(tmp_path):
    rtl = "\u202egnp.exe"
    names = [rtl, "tab\tnew\nline", "a" * 250, "zero\u200bwidth", "bell\x07"]
    for name in names:
        (tmp_path / name).write_bytes(b"x")
    (tmp_path / os.fsdecode(b"bad\xffbyte")).write_bytes(b"x")
    shown = {name for name, _ in _collect(tmp_path).files}
    assert "\ufffdgnp.exe" in shown and "tab\ufffdnew\ufffdline" in shown and "zero\ufffdwidth" in shown
    assert "bad\ufffdbyte" in shown and "bell\ufffd" in shown
    long_name = next(n for n in shown if n.startswith("aaa"))
    assert len(long_name) == run_files.MAX_NAME_CHARS and "…" in long_name
    for name in shown:
        assert all(ch.isprintable() for ch in name), repr(name)


def test_a_file_that_grows_past_what_it_said_is_left_out(tmp_path):
    path = tmp_path / "grows"
    path.write_bytes(b"x" * 10)
    seen = os.stat(path)
    path.write_bytes(b"x" * 5000)                    # same inode, larger than when it was looked at
    fd = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        data, why = run_files._read(fd, "grows", seen, 100)
    finally:
        os.close(fd)
    assert data is None and "grew past 100 bytes" in why
