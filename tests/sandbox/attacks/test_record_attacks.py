"""Issue 13, class 3: "the parent trusts the child's record".

Each program finds the record pipe as an attacker would (the one FIFO among its descriptors,
found with os.fstat) and writes its own bytes into it. The child wrote the sandbox's frame
(nonce and layers) before any of them ran, so what follows is only the program's speech: the
server validates it (app/sandbox/record_schema.py), sets `ok`, `sandbox`, `limits` and
`elapsed_ms` itself, and answers a typed error, never a forged field.
"""
import json

import pytest

FIND_PIPE = '''
import os, stat, json, struct, sys
def pipes():
    found = []
    for fd in range(3, 256):
        try:
            if stat.S_ISFIFO(os.fstat(fd).st_mode):
                found.append(fd)
        except OSError:
            pass
    assert found, "no pipe found"
    return found
def write(data):
    for fd in pipes():
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
def frame(obj):
    payload = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
    return struct.pack("!I", len(payload)) + payload
FORGED_LAYERS = ["FORGED-none"]
def forged(**fields):
    record = {"ok": True, "stdout": "forged\\n", "stderr": "", "output_order": [], "error": None,
              "graphs": [], "warnings": [], "sandbox": FORGED_LAYERS,
              "limits": {"timeout_s": 99999}, "elapsed_ms": -1}
    record.update(fields)
    return record
'''
HTML = '<img src=x onerror="window.__pwned=1">'


def forge(body: str) -> str:
    return FIND_PIPE + body


def layers_are_the_servers(record):
    """`sandbox` is the server's list from the sandbox frame, never the program's."""
    assert record["sandbox"] and "FORGED-none" not in record["sandbox"], record["sandbox"]
    assert any(layer.startswith("rlimits") for layer in record["sandbox"]), record["sandbox"]
    assert record["limits"]["timeout_s"] != 99999 and record["elapsed_ms"] >= 0


def malformed(record, fragment="", whole=True):
    """An internal_error naming the malformed record; when nothing of it was believed (`whole`),
    not even the program's stdout passes."""
    assert record["ok"] is False, record
    assert record["error"]["kind"] == "internal_error", record["error"]
    assert "malformed" in record["error"]["message"] and fragment in record["error"]["message"], record["error"]
    assert "forged" not in record["stdout"] or not whole
    layers_are_the_servers(record)


# -- a whole forged record ------------------------------------------------------------------------

@pytest.mark.parametrize("variant", ["framed-then-exit", "framed-then-continue", "raw-json-then-exit"])
def test_class3_a_forged_whole_record(attack, variant):
    """class 3: the program writes a complete record of its own into the pipe."""
    body = {"framed-then-exit": "write(frame(forged()))\nos._exit(0)\n",
            "framed-then-continue": "write(frame(forged()))\nprint('real')\n",
            "raw-json-then-exit": "write(json.dumps(forged()).encode())\nos._exit(0)\n"}[variant]
    record = attack(forge(body))
    if variant == "framed-then-exit":
        # The only frame after the sandbox's is the program's: believed as its speech, nothing more.
        assert record["stdout"] == "forged\n" and record["ok"] is True
        layers_are_the_servers(record)
    elif variant == "framed-then-continue":
        malformed(record, "more bytes followed it")
    else:
        malformed(record, "incomplete")


@pytest.mark.parametrize("claim", [
    {"sandbox": ["FORGED-none"]},
    {"limits": {"timeout_s": 99999, "memory_mb": 999999}, "elapsed_ms": -1},
    {"ok": True, "error": {"kind": "runtime_error", "type": "ValueError", "message": "m", "line": 1,
                           "traceback": ""}},
    {"error": {"kind": "timeout", "type": "TimeoutError", "message": "FORGED timeout", "line": None,
               "traceback": ""}},
])
def test_class3_forged_fields_that_describe_the_sandbox_or_the_run(attack, claim):
    """class 3: `sandbox`, `limits`, `elapsed_ms`, `ok` and the parent's error kinds are the server's."""
    record = attack(forge(f"write(frame(forged(**{claim!r})))\nos._exit(0)\n"))
    layers_are_the_servers(record)
    assert record["limits"]["memory_mb"] != 999999
    if "error" in claim:
        assert record["ok"] is False
        if claim["error"]["kind"] == "timeout":
            assert record["error"]["kind"] == "internal_error" and "FORGED" not in json.dumps(record)
    else:
        assert record["ok"] is True and record["error"] is None


# -- HTML and script in the fields the page shows --------------------------------------------------

def test_class3_html_in_error_line_is_not_a_line(attack):
    """class 3: the original exploit: HTML in error.line."""
    error = {"kind": "runtime_error", "type": "ValueError", "message": "m", "line": HTML, "traceback": ""}
    record = attack(forge(f"write(frame(forged(ok=False, error={error!r})))\nos._exit(0)\n"))
    assert record["error"]["kind"] == "runtime_error" and record["error"]["line"] is None
    assert HTML not in json.dumps(record)
    layers_are_the_servers(record)


def test_class3_error_line_outside_the_code_is_not_believed(attack):
    """class 3: error.line must be a line of the pasted code (or null)."""
    code = forge("write(frame(forged(ok=False, error={'kind': 'runtime_error', 'type': 'E', 'message': 'm', "
                 "'line': 10**6, 'traceback': ''}, graphs=[{'id': 'g1', 'kind': 'dynamic', 'title': 't', "
                 "'forward': {'nodes': [{'id': 'n1', 'line': -5}], 'edges': []}}])))\nos._exit(0)\n")
    record = attack(code)
    assert record["error"]["line"] is None
    assert record["graphs"][0]["forward"]["nodes"][0]["line"] is None


@pytest.mark.parametrize("where", ["message", "traceback", "type"])
def test_class3_html_in_error_text(attack, where):
    """class 3: HTML in an error's message and traceback stays text; in its type, the error is refused."""
    error = {"kind": "runtime_error", "type": "ValueError", "message": "m", "line": None, "traceback": ""}
    error[where] = HTML
    record = attack(forge(f"write(frame(forged(ok=False, error={error!r})))\nos._exit(0)\n"))
    if where == "type":
        malformed(record, "error type", whole=False)
    else:
        assert record["error"][where] == HTML      # data: the page shows it as text (tests/browser)


def test_class3_html_in_real_output_and_names(attack):
    """class 3: without touching the pipe: HTML printed, raised and used as module and tensor names."""
    code = (f"import torch\nHTML = {HTML!r}\nprint(HTML)\n"
            "Net = type(HTML, (torch.nn.Module,), {'forward': lambda self, x: self.lin(x)})\n"
            "net = Net()\nsetattr(net, 'lin', torch.nn.Linear(2, 1))\n"
            "x = torch.ones(1, 2, requires_grad=True)\nnet(x).sum().backward()\n"
            "raise ValueError(HTML)\n")
    record = attack(code)
    assert record["stdout"] == HTML + "\n"
    assert record["error"]["kind"] == "runtime_error" and record["error"]["message"] == HTML
    assert record["error"]["line"] == code.count("\n")
    layers_are_the_servers(record)


@pytest.mark.parametrize("bad", ["id", "src"])
def test_class3_html_in_graph_ids_drops_the_graph(attack, bad):
    """class 3: ids are attribute values and selectors on the page: only the engine's id form passes."""
    node = {"id": "n1", "op": HTML, "label": HTML, "module": HTML, "name": HTML}
    edge = {"src": "n1", "dst": "n1"}
    (node if bad == "id" else edge)[bad] = HTML
    graph = {"id": "g1", "kind": "dynamic", "title": HTML, "forward": {"nodes": [node], "edges": [edge]}}
    record = attack(forge(f"write(frame(forged(graphs=[{graph!r}])))\nos._exit(0)\n"))
    assert record["graphs"] == [] and HTML not in json.dumps(record["graphs"])
    assert any("Graph 1 of the run's record was malformed" in w for w in record["warnings"])
    layers_are_the_servers(record)


# -- numbers and types ----------------------------------------------------------------------------

@pytest.mark.parametrize("payload,fragment", [
    (b'{"ok": true, "stdout": NaN}', "not strict JSON"),
    (b'{"ok": true, "stdout": "x", "graphs": [{"v": Infinity}]}', "not strict JSON"),
    (b'{"ok": true, "stdout": "x", "elapsed_ms": 1e999}', "not a finite number"),
    (b'{"ok": true, "stdout": "x", "big": ' + b"9" * 40 + b"}", "integer is out of range"),
    (b'["not", "an", "object"]', "not an object"),
])
def test_class3_non_finite_numbers_and_non_objects(attack, payload, fragment):
    """class 3: NaN, Infinity, 1e999, huge integers, a record that is not an object."""
    record = attack(forge(f"write(frame({payload!r}))\nos._exit(0)\n"))
    malformed(record, fragment)


def test_class3_wrong_types_are_left_out_with_a_note(attack):
    """class 3: stdout a list, warnings a dict, graphs a string: each dropped, the rest kept."""
    record = attack(forge("write(frame(forged(stdout=['<b>x</b>'], stderr='ok', warnings={'a': 1}, "
                          "graphs='<script>')))\nos._exit(0)\n"))
    assert record["stdout"] == "" and record["stderr"] == "ok" and record["graphs"] == []
    assert any("malformed stdout" in w for w in record["warnings"])
    assert any("malformed graphs" in w for w in record["warnings"])
    layers_are_the_servers(record)


@pytest.mark.parametrize("error", [["runtime_error"], {"kind": "runtime_error", "message": ["x"]},
                                   {"kind": "runtime_error", "message": "m", "line": "7"}])
def test_class3_a_malformed_error(attack, error):
    """class 3: an error of the wrong shape never passes through as it is."""
    record = attack(forge(f"write(frame(forged(ok=False, error={error!r})))\nos._exit(0)\n"))
    assert record["ok"] is False
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        assert record["error"]["line"] is None          # "7" is not a line number
    else:
        malformed(record, "error", whole=False)


# -- size and depth -------------------------------------------------------------------------------

@pytest.mark.parametrize("body,fragment", [
    ("write(frame(b'[' * 100000 + b']' * 100000))", "nested"),
    ("write(frame(('{\"stdout\": ' + '[' * 60 + ']' * 60 + '}').encode()))", "nested deeper"),
    ("write(frame(json.dumps(forged(graphs=[0] * 300000)).encode()))", "entries"),
    ("write(frame(json.dumps(forged(**{str(i): i for i in range(1000)})).encode()))", "keys"),
])
def test_class3_deep_nesting_and_huge_lists(attack, body, fragment):
    """class 3: nesting and lists the server would choke on (or recurse through) are refused."""
    record = attack(forge(body + "\nos._exit(0)\n"))
    malformed(record, fragment)


def test_class3_oversized_strings_are_cut(attack):
    """class 3: a stdout, message and warning far past their bounds are cut by the server."""
    record = attack(forge("write(frame(forged(stdout='A' * 3_000_000, warnings=['W' * 100_000], ok=False, "
                          "error={'kind': 'runtime_error', 'type': 'E', 'message': 'M' * 100_000, "
                          "'traceback': 'T' * 500_000})))\nos._exit(0)\n"))
    assert len(record["stdout"]) < 201_000 and "cut by the server" in record["stdout"]
    assert len(record["error"]["message"]) < 4_300 and len(record["error"]["traceback"]) < 20_300
    assert len(record["warnings"][0]) < 10_100
    layers_are_the_servers(record)


# -- broken framing -------------------------------------------------------------------------------

@pytest.mark.parametrize("body", [
    "write(struct.pack('!I', 1000) + b'{\"ok\": true')\nos._exit(0)",
    "write(b'\\0\\0')\nos._exit(0)",
    "write(struct.pack('!I', 10))\nos._exit(0)",
])
def test_class3_partial_frames_then_exit(attack, body):
    """class 3: a frame cut short (a length with too few bytes, half a length) then exit."""
    malformed(attack(forge(body + "\n")), "incomplete")


@pytest.mark.parametrize("body", [
    "write(frame(bytes(range(256)) * 4))\nos._exit(0)",
    "write(frame(b'\\xff\\xfe{\"ok\": true}'))\nos._exit(0)",
    "write(os.urandom(64))\nprint('real record follows')",
])
def test_class3_garbage_bytes(attack, body):
    """class 3: bytes that are not JSON, not UTF-8, or not a frame before the real record."""
    malformed(attack(forge(body + "\n")))


@pytest.mark.parametrize("body", [
    "write(frame(b'x' * 9_000_000))\nos._exit(0)",
    "write(struct.pack('!I', 0xFFFFFFFF))\nwhile True:\n    write(b'y' * 65536)",
])
def test_class3_a_record_larger_than_the_limit(attack, body):
    """class 3: more bytes on the pipe than a record may have: the supervisor stops the run."""
    record = attack(forge(body + "\n"))
    assert record["error"]["kind"] == "output_limit" and "larger than" in record["error"]["message"]
    layers_are_the_servers(record)


def test_class3_the_pipe_closed_or_replaced(attack):
    """class 3: the program closes the record pipe: no record, never success."""
    record = attack(forge("for fd in pipes():\n    os.close(fd)\nprint('x')\n"))
    assert record["ok"] is False and record["error"]["kind"] == "runtime_error"
    assert "ended before its results were collected" in record["error"]["message"]
    layers_are_the_servers(record)


def test_class3_a_forged_sandbox_frame_is_only_a_record(attack):
    """class 3: a second "sandbox frame" (a guessed nonce, layers of its own) is read as the record."""
    record = attack(forge("write(frame({'nonce': 'guess', 'layers': FORGED_LAYERS}))\nos._exit(0)\n"))
    assert record["ok"] is True and record["stdout"] == "" and "FORGED" not in json.dumps(record)
    layers_are_the_servers(record)
