"""Class 3 and 5: what a run says reaching the answer's headers and its JSON.

POST /api/run's Server-Timing is the server's and the supervisor's clocks (app/routes/run.py
server_timing, runner._note_phases), and its body is written by orjson, json where orjson will not
(app/responses.py). A program forges a record with fields of those names and prints what JSON
writers get wrong; the header keeps its fixed names and numbers, and the body is strict UTF-8 JSON.
"""
import json
import re

from app.sandbox.runner import RUN_PHASES

FORGE = '''
import os, stat, json, struct
for fd in range(3, 256):
    try:
        if not stat.S_ISFIFO(os.fstat(fd).st_mode):
            continue
    except OSError:
        continue
    record = {"ok": True, "stdout": TEXT, "stderr": "", "output_order": [], "error": None, "graphs": [],
              "warnings": [], "run_id": "A" * 32, "cpu_s": "1\\r\\nSet-Cookie: x=1", "timing": {"cpu": 1e300},
              "phases": {"program": "9;dur=1\\r\\nX-Forged: 1", "cpu": 424242.0}}
    payload = json.dumps(record).encode("utf-8", "surrogatepass")
    os.write(fd, struct.pack("!I", len(payload)) + payload)
os._exit(0)
'''
TEXT = "</script><!-- \u2028\u2029 \x00 \x1b[2J \ud800 \U0001F600 " + "9" * 40


def test_the_server_timing_header_is_the_servers(live_server, attack):
    answer = live_server.request("POST", "/api/run", json={"code": f"TEXT = {TEXT!r}\n" + FORGE, "options": {}})
    assert answer.status_code == 200
    header = answer.headers["server-timing"]
    names = ("queue", *RUN_PHASES)
    assert re.fullmatch(r"[a-z]+;dur=[0-9]+\.[0-9](, [a-z]+;dur=[0-9]+\.[0-9])*", header), header
    assert [part.split(";")[0] for part in header.split(", ")] == [n for n in names if f"{n};" in header]
    assert "424242" not in header and "x-forged" not in answer.headers and "set-cookie" not in answer.headers
    record = answer.json()
    assert record["run_id"] is None and record["ok"] is True         # the run kept no values: no id of its own


def test_the_answer_is_strict_json_whatever_the_run_printed(live_server, attack):
    """The forged record's text (a lone surrogate in it: orjson refuses it, json writes '?') and the
    same text printed for real: the body is strict UTF-8 and reads back as the text."""
    for code in (f"TEXT = {TEXT!r}\n" + FORGE, f"print({TEXT!r}, end='')\n"):
        answer = live_server.request("POST", "/api/run", json={"code": code, "options": {}})
        assert answer.status_code == 200
        record = json.loads(answer.content.decode("utf-8"))
        assert record["stdout"] == TEXT.replace("\ud800", "?"), record["stdout"][:200]
        assert answer.headers["content-type"] == "application/json"
