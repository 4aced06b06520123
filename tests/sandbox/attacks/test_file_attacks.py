"""Issue 19: the files a run leaves in its working folder come back for download, and everything
about them is the run's doing: their names, kinds, sizes and counts, and what the record says of
them. The supervisor collects them itself after the run has ended (app/sandbox/run_files.py,
through the folder's descriptor the child handed over before any pasted code ran), the server
keeps them for the client that ran the program, and GET url serves them only as attachments.
A FIFO, a socket or a device cannot be made by a run (seccomp refuses mknod and sockets), so
they are left to tests/sandbox/test_run_files.py, on a folder made outside a run."""
import hashlib
import json

from test_record_attacks import FIND_PIPE

PASSWD = open("/etc/passwd", "rb").read()


def _files(record):
    return {f["name"]: f for f in record.get("files", [])}


def _download(live_server, entry):
    r = live_server.request("GET", entry["url"])
    assert r.status_code == 200, r.text
    assert r.headers["content-type"] == "application/octet-stream"
    assert r.headers["content-disposition"].startswith("attachment; filename=\"")
    assert r.headers["x-content-type-options"] == "nosniff"
    assert hashlib.sha256(r.content).hexdigest() == entry["sha256"] and len(r.content) == entry["size"]
    return r


def test_links_out_of_the_folder_never_bring_a_host_file_back(attack, live_server):
    """Symbolic links to the host's files and folders (and to the data folder, where the store is),
    a hard link tried across the boundary and one made inside: none is read."""
    record = attack(f'''
import os
os.symlink("/etc/passwd", "passwd")
os.symlink("/", "root")
os.symlink({str(live_server.data_dir)!r}, "data")
os.symlink("../../../../etc/passwd", "up")
try:
    os.link("/etc/passwd", "hard-passwd")
except OSError as exc:
    print("link refused:", type(exc).__name__)
open("mine", "w").write("mine")
os.link("mine", "twin")
open("kept.txt", "w").write("kept")
''')
    assert record["ok"] and "link refused" in record["stdout"], record["error"]
    assert set(_files(record)) == {"kept.txt"}
    note = record["files_note"]
    for name in ("passwd", "root", "data", "up"):
        assert f"{name} (not a regular file (a symbolic link))" in note, note
    assert "mine (a hard link" in note and "twin (a hard link" in note
    assert _download(live_server, _files(record)["kept.txt"]).content == b"kept"


def test_hostile_names_are_made_safe_in_the_record_and_the_download(attack, live_server):
    """Path separators cannot be in a name, but everything else can: dots, backslashes, quotes,
    newlines, bidirectional overrides, undecodable bytes, 255 bytes of name."""
    record = attack(r'''
import os
names = ["..\\..\\evil.bat", "a\"; filename=\"x.html", "new\nline\r.txt", "\u202egnp.exe",
         "x" * 250 + ".pt", "<img src=x onerror=alert(1)>.html"]
for name in names:
    open(name, "w").write("data")
open(b"bad\xff.bin", "w").write("data")
''')
    assert record["ok"], record["error"]
    files = _files(record)
    assert len(files) == 7
    text = json.dumps(record["files"], ensure_ascii=False)
    assert "\u202e" not in text and "\n" not in "".join(files) and "\r" not in "".join(files)
    assert "\ufffdgnp.exe" in files and "bad\ufffd.bin" in files and "new\ufffdline\ufffd.txt" in files
    assert all(len(name) <= 200 for name in files)
    for entry in files.values():
        disposition = _download(live_server, entry).headers["content-disposition"]
        ascii_part = disposition.split(";")[1]
        assert ascii_part.count('"') == 2 and not any(c in ascii_part for c in "\\<>/\r\n")
    # the HTML-named file is served as bytes to save, never as a page
    r = _download(live_server, files["<img src=x onerror=alert(1)>.html"])
    assert "text/html" not in r.headers["content-type"]


def test_counts_bytes_and_depth_are_bounded_and_named(attack, live_server):
    """Thousands of files, files past the per-run bytes (sparse ones: a size, no blocks) and
    folders 40 deep: the run answers in time (what the store could not take by the end of the
    run's time is named too), the files kept within the bounds, the rest named. (~4 s: making
    2,100 files is what passes the walk's per-folder bound.)"""
    record = attack('''
import os
for i in range(2100):
    open(f"f{i:05}", "w").close()
for i in range(3):
    with open(f"big{i}", "wb") as f:
        f.truncate(12 << 20)
os.makedirs("/".join(["d"] * 40))
print("made")
''')
    assert record["ok"] and record["stdout"] == "made\n", record["error"]
    files = _files(record)
    assert len(files) <= 20 and sum(f["size"] for f in files.values()) <= 32 << 20
    note = record["files_note"]
    assert "more than 2000 entries" in note and "d/d/d/d/d/ (folders more than 4 deep" in note
    assert "big2 (12582912 bytes: past the" in note
    for name in ("big0", "big1"):       # kept, or not by the end of the run's time (a loaded machine)
        assert name in files or (name in note and "the run's time was up" in note), note
    assert "more (" in note or "; and " in note
    for entry in files.values():
        _download(live_server, entry)


def test_a_file_still_growing_when_the_run_is_stopped(attack, live_server):
    """A thread appends to a file until the clock kills the run: the file is read after the run
    has ended (nothing writes it then), within the bounds, and the answer comes in time. (The run's
    3 s limit is the point of it.)"""
    record = attack('''
import threading
def grow():
    with open("log.txt", "ab") as f:
        while True:
            f.write(b"x" * 65536)
            f.flush()
            f.seek(0)
            f.truncate(0)
threading.Thread(target=grow, daemon=True).start()
while True:
    pass
''')
    assert record["error"]["kind"] == "timeout"
    files = _files(record)
    assert set(files) <= {"log.txt"}
    if files:
        assert files["log.txt"]["size"] <= 65536
        _download(live_server, files["log.txt"])


def test_a_forged_files_field_in_the_record_is_dropped(attack):
    """`files` is the server's: a record the program forges with its own list (a url of its
    choosing, a script name) loses it; the real files are what the supervisor found."""
    forged = {"files": [{"name": "<script>", "size": 1, "sha256": "0" * 64, "url": "javascript:alert(1)"}],
              "files_note": "FORGED"}
    record = attack(FIND_PIPE + f'''
open("real.txt", "w").write("real")
record = forged(**{forged!r})
write(frame(record))
os._exit(0)
''')
    assert record["ok"] and record["stdout"] == "forged\n"
    assert [f["name"] for f in record["files"]] == ["real.txt"]
    assert record["files"][0]["url"].startswith("/api/files/") and record["files_note"] is None
    assert "FORGED" not in json.dumps(record["files"]) and "javascript" not in json.dumps(record)
