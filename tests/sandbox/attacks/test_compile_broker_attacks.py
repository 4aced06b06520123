"""Issue 13, class 1: "the compile broker compiles whatever C a run sends, as root, unconfined".

A run now sends only a description of its kernels (engine/codegen/description.py); the supervisor
checks it, renders the C itself and compiles it confined (app/sandbox/compile_broker.py,
app/sandbox/confine.py). Each program here is what an attacker would paste: it tries to get C of
its own choosing (or a file of the host) into a compiled library, to hang or blow up the compiler,
to compile through the engine's own APIs, to speak to the broker's socket directly, or to learn
from the shared kernel cache what another client ran. Programs run through the live server
(`attack`); forged protocol frames are also fed straight to `serve_request` over a socketpair.
"""
from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import struct
import time

import httpx
import numpy as np
import pytest

from app.sandbox import compile_broker
from app.sandbox.protocol import recv_frame, recv_json
from engine.codegen.description import canonical, compiled_source, describe
from engine.codegen.kernel import lower
from engine.ir.graph import Graph
from engine.passes import run_pipeline

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler: nothing is compiled")
EVIL_NAME = '*/ #include "/etc/passwd" /*'


@pytest.fixture(scope="module")
def secret_file():
    """A world-readable file only the confinement keeps from the compiler."""
    token = "DAGSCOPE-SECRET-" + secrets.token_hex(8)
    path = f"/tmp/dagscope-broker-secret-{token[-8:]}"
    with open(path, "w") as f:
        f.write(token + "\n")
    os.chmod(path, 0o644)
    yield path, token
    os.unlink(path)


def kernel_description(shape=(4, 8)) -> dict:
    g = Graph("k")
    x = g.placeholder("x", shape, np.float32)
    g.output(g.call("sum", g.call("tanh", g.call("mul", x, x)), dim=(1,)))
    optimized = run_pipeline(g).graph
    return describe([lower(optimized, grp) for grp in optimized.fusion_groups if grp.kind != "extern"])


# In-run helpers: the broker's socket found as an attacker would (the one socket among the
# descriptors), frames written and read with os.read/os.write (the socket module is refused).
RAW = '''
import os, stat, json, struct
def broker_fd():
    socks = [fd for fd in range(3, 256) if _is_sock(fd)]
    assert socks, "no socket found"
    return socks[0]
def _is_sock(fd):
    try:
        return stat.S_ISSOCK(os.fstat(fd).st_mode)
    except OSError:
        return False
def send(payload):
    fd = broker_fd()
    payload = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    data = struct.pack("!I", len(payload)) + payload
    while data:
        data = data[os.write(fd, data):]
def _exact(fd, n):
    got = b""
    while len(got) < n:
        chunk = os.read(fd, n - len(got))
        if not chunk:
            return None
        got += chunk
    return got
def answer():
    fd = broker_fd()
    head = _exact(fd, 4)
    if head is None:
        return "closed"
    return json.loads(_exact(fd, struct.unpack("!I", head)[0]))
'''

COMPILE_AND_CHECK = '''
import torch
def f(x, y):
    return torch.tanh(x * y + 1).sum(dim=1)
g = torch.compile(f)
x = torch.randn(4, 8); y = torch.randn(4, 8)
print("same" if torch.allclose(g(x, y), f(x, y), atol=1e-5) else "DIFFERENT")
'''


def compiled_kernels(record) -> list[dict]:
    return [k for g in record["graphs"] for k in g.get("kernels", [])]


# ---- asm / .incbin: C of the run's choosing never reaches the compiler -----------------------

@pytest.mark.parametrize("patch", [
    # the run rewrites the engine's renderer: its C is only for display now
    'c_render.C_EXPR["tanh"] = lambda x, a: f\'({a}); __asm__(".incbin \\\\"{PATH}\\\\"")\'',
    'c_render.PRELUDE = c_render.PRELUDE + \'__asm__(".incbin \\\\"{PATH}\\\\"");\\n\'',
])
def test_incbin_through_a_patched_renderer_is_not_compiled(attack, secret_file, patch):
    """class 1: .incbin/asm file reads (the run patches c_render to emit asm)"""
    path, token = secret_file
    code = ("import os\nfrom engine.codegen import c_render\nPATH = " + repr(path) + "\n" + patch + "\n" +
            COMPILE_AND_CHECK + "blobs = [open('.kernels/' + n, 'rb').read() for n in os.listdir('.kernels') "
            "if n.endswith('.so')]\n"
            f"print('libraries', len(blobs), 'leaked' if any({token.encode()!r} in b for b in blobs) else 'clean')\n")
    record = attack(code)
    assert record["ok"], record["error"]
    assert record["stdout"] == "same\nlibraries 1 clean\n", record["stdout"]
    assert token not in json.dumps(record)
    assert {k["language"] for k in compiled_kernels(record)} == {"c"}


@pytest.mark.parametrize("where, forge", [
    ("attr", 'd["kernels"][0]["steps"][0].update(op="gelu", args=[{"load": 0}], arg_dtypes=["float32"], '
             'attrs={"approximate": \'tanh") __asm__(".incbin \\\\"\' + PATH + \'\\\\"");//\'})'),
    ("field", 'd["kernels"][0]["asm"] = \'__asm__(".incbin \\\\"\' + PATH + \'\\\\"")\''),
])
def test_incbin_in_a_forged_description_is_refused(attack, secret_file, where, forge):
    """class 1: .incbin/asm file reads (asm carried in a description's words)"""
    path, token = secret_file
    code = (f"import json\nfrom engine.codegen import cc\nPATH = {path!r}\nd = json.loads({json.dumps(kernel_description())!r})\n"
            f"{forge}\ntry:\n    cc.compile_kernels(d)\n    print('compiled')\nexcept cc.CompileError as e:\n    print(e)\n")
    record = attack(code)
    assert record["ok"], record["error"]
    expected = "not one of none, tanh" if where == "attr" else "unknown field 'asm'"
    assert record["stdout"].startswith("refused kernel description: kernel 0") and expected in record["stdout"]
    assert token not in record["stdout"]


# ---- directive smuggling: trigraph, digraph, comment- and line-splice-spelled ----------------

SMUGGLED = {
    "trigraph": '??=include "/etc/passwd"',
    "digraph": '%:include "/etc/passwd"',
    "comment-spelled": '/**/#/**/include "/etc/passwd"',
    "line-spliced": '\\\n#include "/etc/passwd"',
}


@pytest.mark.parametrize("spelling", list(SMUGGLED))
def test_smuggled_directives_in_names_never_reach_the_compiler(attack, spelling):
    """class 1: directive smuggling through a function's and a submodule's names"""
    text = SMUGGLED[spelling]
    code = f'''
import torch, hashlib
from engine.codegen import cc
from engine.codegen.description import canonical
seen = []
inner = cc._service
cc.set_compiler_service(lambda d: (seen.append(canonical(d)), inner(d))[1])
model = torch.nn.Sequential()
model.add_module({text!r}, torch.nn.Tanh())
def f(x):
    return model(x * 3.0).sum(dim=1)
f.__name__ = f.__qualname__ = {text!r}
g = torch.compile(f)
x = torch.randn(5, 7)
print("same" if torch.allclose(g(x), f(x), atol=1e-5) else "DIFFERENT")
print("descriptions", len(seen), "name inside" if any({text!r} in s or "passwd" in s for s in seen) else "no name")
'''
    record = attack(code)
    assert record["ok"], record["error"]
    assert record["stdout"] == "same\ndescriptions 1 no name\n", record["stdout"]
    assert "root:x:0:0" not in json.dumps(record)


@pytest.mark.parametrize("spelling", ["trigraph", "digraph"])
def test_smuggled_directives_in_forged_words_are_refused(attack, spelling):
    """class 1: directive smuggling through a description's dtype and op words"""
    text = SMUGGLED[spelling]
    code = (f"import json\nfrom engine.codegen import cc\nd = json.loads({json.dumps(kernel_description())!r})\n"
            f"d['kernels'][0]['inputs'][0]['dtype'] = {text!r}\n"
            "try:\n    cc.compile_kernels(d)\nexcept cc.CompileError as e:\n    print(e)\n"
            f"d = json.loads({json.dumps(kernel_description())!r})\nd['kernels'][0]['steps'][0]['op'] = {text!r}\n"
            "try:\n    cc.compile_kernels(d)\nexcept cc.CompileError as e:\n    print(e)\n")
    record = attack(code)
    assert record["stdout"] == ("refused kernel description: kernel 0.inputs[0].dtype: not a dtype with a C type\n"
                                "refused kernel description: kernel 0.steps[0].op: not an elementwise op with a C rule\n")


# ---- names from user objects that end a comment ----------------------------------------------

NAMED_RUN = '''
import torch, hashlib
from engine.codegen import cc
from engine.codegen.description import canonical
seen = []
inner = cc._service
cc.set_compiler_service(lambda d: (seen.append(canonical(d)), inner(d))[1])
class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(6, 6)
    def forward(self, x):
        return torch.tanh(self.lin(x)) * 2.0
Block.__name__ = Block.__qualname__ = NAME
model = Block()
def step(x):
    return model(x).sum(dim=1)
step.__name__ = NAME
torch.manual_seed(0)
x = torch.randn(3, 6)
out = torch.compile(step)(x)
print("same" if torch.allclose(out, step(x), atol=1e-5) else "DIFFERENT")
print(hashlib.sha256("".join(seen).encode()).hexdigest(), len(seen))
'''


@pytest.mark.parametrize("name", [EVIL_NAME, '*/ __asm__(".incbin \\"/etc/passwd\\""); /*'])
def test_a_comment_ending_name_compiles_exactly_as_a_harmless_one(attack, name):
    """class 1: comment-ending names from user objects (module, submodule and function names)"""
    evil = attack(f"NAME = {name!r}\n" + NAMED_RUN)
    plain = attack("NAME = 'block'\n" + NAMED_RUN)
    assert evil["ok"] and plain["ok"], (evil["error"], plain["error"])
    assert evil["stdout"].startswith("same\n") and evil["stdout"] == plain["stdout"]   # one description
    assert "root:x:0:0" not in json.dumps(evil)


def test_names_and_lines_change_the_display_not_the_compiled_source():
    """class 1: comment-ending names — the C the broker compiles is the same, byte for byte"""
    def module(name: str) -> tuple[str, str]:
        g = Graph(name)
        x = g.placeholder(name, (4, 8), np.float32)
        g.output(g.call("relu", g.call("mul", x, 2.0)))
        optimized = run_pipeline(g).graph
        kernels = [lower(optimized, grp) for grp in optimized.fusion_groups if grp.kind != "extern"]
        for k in kernels:
            k.name = "fused_" + name.replace(" ", "_")
            for st in k.steps:
                st.comment = f"{st.node_id} | line 1: {name}"
        return canonical(describe(kernels)), compiled_source(describe(kernels))
    evil_text, evil_c = module(EVIL_NAME)
    plain_text, plain_c = module("harmless")
    assert evil_c == plain_c and evil_text == plain_text
    assert "passwd" not in evil_c and "#include \"" not in evil_c


# ---- an include of /proc/self/fd that would leave cc1 blocked forever ---------------------------

@pytest.mark.parametrize("request_,refusal", [
    ({"source": '#include "/proc/self/fd/0"\nint f;\n', "flags": ["-O3"]},                 # the old protocol
     "unknown field 'flags'"),
    ({"version": 1, "kernels": [{"dims": [1], "reduced": [False], "inputs": [], "outputs": [
        {"dtype": "float32", "shape": [1]}], "loads": [], "steps": [{"op": '#include "/proc/self/fd/1"',
        "args": [], "arg_dtypes": [], "attrs": {}, "dtype": "float32"}], "stores": [], "reduction": None,
        "accumulate_in_output": False, "library": None}]}, "steps[0].op: not an elementwise op"),
])
def test_a_hanging_include_is_refused_at_once(attack, request_, refusal):
    """class 1: include of /proc/self/fd hanging cc"""
    # timed inside the run, from the request to its answer: the run's own start (seconds at load 15)
    # is not the broker's (a hung compile would answer at the run's 3 s deadline)
    record = attack(RAW + f"import time\nstarted = time.monotonic()\nsend({request_!r})\nprint(answer())\n"
                          "print('answered in', time.monotonic() - started)\n")
    assert record["ok"], record["error"]
    answer, took = record["stdout"].rsplit("answered in ", 1)
    assert float(took) < 2, took
    assert "refused kernel description" in answer
    assert refusal in answer, answer      # each request's own reason, not either one


def _cc1_of_nobody() -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/status") as f:
                status = f.read()
        except OSError:
            continue
        if "\nName:\tcc1\n" in "\n" + status and "\nUid:\t65534\t" in status:
            found.append(int(entry))
    return found


def test_a_compile_past_its_deadline_leaves_no_compiler_behind():
    """class 1: include of /proc/self/fd hanging cc — a compile the deadline stops is gone whole"""
    source = compiled_source(kernel_description())
    source += "".join(f"float big{i}(float x) {{ return {' + '.join(f'sinf(x * {j}.0f)' for j in range(200))}; }}\n"
                      for i in range(60))
    started = time.monotonic()
    with pytest.raises(compile_broker.BrokerError, match="took longer than the 0.5 s left in the run"):
        compile_broker.compile_confined(source, 0.5, 1024)
    assert time.monotonic() - started < 2
    deadline = time.monotonic() + 2
    while _cc1_of_nobody() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _cc1_of_nobody() == []


# ---- macro and size bombs ---------------------------------------------------------------------

def test_a_macro_bomb_in_the_old_protocol_is_refused(attack):
    """class 1: macro/template bombs (sent as source)"""
    bomb = ("#define A(x) x x x x x x x x\n#define A0(x) A(A(A(x)))\n" +
            "".join(f"#define A{i + 1}(x) A{i}(A{i}(x))\n" for i in range(3)) + "int v = 0 A3(+1);\n")
    record = attack(RAW + f"send({{'source': {bomb!r}, 'flags': []}})\nprint(answer())\n")
    assert "refused kernel description: the description: unknown field 'flags'" in record["stdout"]


BOMB = """
import json, time
from engine.codegen import cc
d = json.loads(DESCRIPTION)
k = d["kernels"][0]
k["steps"] = k["steps"][:1] + [{"op": "gelu", "args": [{"step": i}], "arg_dtypes": ["float32"],
                                "attrs": {"approximate": "tanh"}, "dtype": "float32"} for i in range(STEPS - 1)]
k["reduction"]["ref"] = {"step": STEPS - 1}
d["kernels"] = [k] * KERNELS
try:
    cc.compile_kernels(d)
    print("compiled")
except Exception as e:
    print(type(e).__name__, isinstance(e, ConnectionError), str(e)[:100])
"""


def test_a_description_too_large_to_send_is_refused(attack):
    """class 1: macro/template bombs (past the 4 MB request limit: 48 kernels of 1024 steps)"""
    code = BOMB.replace("DESCRIPTION", repr(json.dumps(kernel_description()))).replace("STEPS", "1024") \
        .replace("KERNELS", "48")
    record = attack(code)
    assert record["ok"], record["error"]
    assert " True " in record["stdout"], record["stdout"]        # the supervisor hung up on it


def test_a_description_with_too_many_steps_is_refused(attack):
    """class 1: macro/template bombs (under the request limit, over the module's 4,096 steps)"""
    code = BOMB.replace("DESCRIPTION", repr(json.dumps(kernel_description()))).replace("STEPS", "1024") \
        .replace("KERNELS", "5")
    record = attack(code)
    assert record["stdout"].startswith("CompileError False refused kernel description: 5120 steps in one module"), \
        record["stdout"]


def test_a_description_heavy_to_compile_is_stopped_at_the_deadline(attack):
    """class 1: macro/template bombs (4,096 inlined tanh-gelus, >30 s of -O3: stopped with the run)"""
    code = BOMB.replace("DESCRIPTION", repr(json.dumps(kernel_description()))).replace("STEPS", "1024") \
        .replace("KERNELS", "4")
    record = attack(code)
    assert not record["ok"] and record["error"]["kind"] == "timeout", record["error"]


def test_the_compiler_runs_within_the_runs_memory():
    """class 1: macro/template bombs — the compiler's address space is the run's memory limit"""
    bomb = ("#define A(x) x x x x x x x x\n#define A0(x) A(A(A(x)))\n" +
            "".join(f"#define A{i + 1}(x) A{i}(A{i}(x))\n" for i in range(3)) + "int v = 0 A3(+1);\n")
    started = time.monotonic()
    with pytest.raises(compile_broker.BrokerError, match="cc1: out of memory allocating"):
        compile_broker.compile_confined(bomb, 20, 256)
    assert time.monotonic() - started < 10


# ---- the engine's APIs from pasted code ---------------------------------------------------------

@pytest.mark.parametrize("code, expected", [
    ("from engine.codegen import loader\nloader.load_module('#include \"/etc/passwd\"', {'f': 1})\n",
     ("AttributeError", "has no attribute 'load_module'")),
    ("from engine.codegen import cc\ncc.compile_cached('__asm__(\".incbin \\\\\"/etc/passwd\\\\\"\");')\n",
     ("CompileError", "C source is not compiled inside a run")),
    ("from engine.codegen import cc\ncc._local_compile('int x;', cc.FLAGS)\n",
     ("CompileError", "C source is not compiled inside a run")),
    ("from engine import native\nfrom pathlib import Path\n"
     "open('evil.c', 'w').write('__asm__(\".incbin \\\\\"/etc/passwd\\\\\"\");')\n"
     "native.SOURCE = Path('evil.c')\nprint(native.load(), native.status())\n", None),
])
def test_engine_apis_compile_no_source_from_a_run(attack, code, expected):
    """class 1: loader/engine APIs called from pasted code to compile arbitrary source"""
    record = attack(code)
    if expected is None:          # native.load() reads, then refuses to compile: the Python operators run
        assert record["ok"], record["error"]
        assert record["stdout"].startswith("None off: CompileError: C source is not compiled inside a run")
        assert "root:x:0:0" not in json.dumps(record)
        return
    assert not record["ok"] and record["error"]["type"] == expected[0]
    assert expected[1] in record["error"]["message"]


def test_lifting_the_refusal_still_compiles_nothing(attack):
    """class 1: loader/engine APIs — a run that clears the refusal meets the kernel layers"""
    code = ("from engine.codegen import cc\nfrom engine.native import build\nbuild._source_refusal = None\n"
            "cc.compile_cached('int f(void) { return 1; }')\n")
    record = attack(code)
    assert not record["ok"]
    assert record["error"]["kind"] == "security_violation", record["error"]
    assert "starting other programs" in record["error"]["message"] or "Blocked" in record["error"]["message"]


# ---- raw bytes on the broker's socket -------------------------------------------------------------

@pytest.mark.parametrize("garbage", [
    b"\xff\xff\xff\xff" + b"A" * 64,                        # a frame claiming 4 GB
    b"\x00\x00\x00\x10" + b"not json at all!",              # a frame that is not JSON
    "nested",                                               # JSON nested past the parser's stack
])
def test_raw_bytes_on_the_broker_socket_end_compiling_not_the_run(attack, garbage):
    """class 1: raw bytes written to the broker socket (the fd found by fstat)"""
    garbage = 'struct.pack("!I", 200001) + b"[" * 200000 + b"]"' if garbage == "nested" else repr(garbage)
    code = RAW + (f"data = {garbage}\nwhile data:\n    data = data[os.write(broker_fd(), data):]\n"
                  "print(answer())\n") + COMPILE_AND_CHECK
    record = attack(code)
    assert record["ok"], record["error"]
    assert record["stdout"] == "closed\nsame\n", record["stdout"]           # numpy ran the graph
    notes = [g["timings"].get("note") or "" for g in record["graphs"] if g.get("timings")]
    assert any("numpy backend" in n for n in notes), notes


# ---- forged descriptions --------------------------------------------------------------------------

FORGERIES = {
    "out-of-range strides": ('d["kernels"][0]["loads"][0]["strides"] = [1 << 30, 1]', "load 0 reaches outside its buffer"),
    "negative strides past the start": ('d["kernels"][0]["loads"][0]["strides"] = [-8, 1]', "load 0 reaches outside"),
    "huge dims": ('d["kernels"][0]["dims"] = [1 << 40, 1 << 40]', "loop iterations (at most"),
    "unknown op": ('d["kernels"][0]["steps"][0]["op"] = "system"', "steps[0].op: not an elementwise op"),
    "bad dtype": ('d["kernels"][0]["outputs"][0]["dtype"] = "char*"', "outputs[0].dtype: not a dtype with a C type"),
    "injection in an attr": ('d["kernels"][0]["steps"][0]["attrs"] = {"divisor": "1); system(\\"id\\"); ("}; '
                             'd["kernels"][0]["steps"][0]["op"] = "div_scalar"; d["kernels"][0]["steps"][0]["args"] = '
                             'd["kernels"][0]["steps"][0]["args"][:1]; d["kernels"][0]["steps"][0]["arg_dtypes"] = ["float32"]',
                             "attrs.divisor: not a number"),
    "a literal that is no number": ('d["kernels"][0]["steps"][0]["args"][1] = {"literal": "1;}", "dtype": "float32"}',
                                    "args[1].literal: not a number"),
    "a reference ahead": ('d["kernels"][0]["steps"][0]["args"][0] = {"step": 3}', "args[0].step: not an integer in"),
}


@pytest.mark.parametrize("name", list(FORGERIES))
def test_forged_descriptions_from_a_run_are_refused(attack, name):
    """class 1: forged descriptions (strides, dims, ops, dtypes, injection strings in attrs)"""
    forge, message = FORGERIES[name]
    code = (f"import json\nfrom engine.codegen import cc\nd = json.loads({json.dumps(kernel_description())!r})\n"
            f"{forge}\ntry:\n    cc.compile_kernels(d)\n    print('compiled')\nexcept cc.CompileError as e:\n    print(e)\n")
    record = attack(code)
    assert record["ok"], record["error"]
    assert record["stdout"].startswith("refused kernel description: kernel 0"), record["stdout"]
    assert message in record["stdout"], record["stdout"]


def _serve(frame: bytes, budget_s: float = 20, partition=None):
    """Feed one raw frame to the supervisor's broker; (answer, library or None) or the exception."""
    ours, theirs = socket.socketpair()
    try:
        ours.sendall(frame)
        compile_broker.serve_request(theirs, budget_s, 1024, partition)
        ours.settimeout(5)
        answer = recv_json(ours)
        return answer, (recv_frame(ours, 1 << 26) if answer.get("ok") else None)
    finally:
        ours.close()
        theirs.close()


def _frame(obj) -> bytes:
    payload = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
    return struct.pack("!I", len(payload)) + payload


@pytest.mark.parametrize("forge, message", [
    (lambda d: d["kernels"][0]["stores"].append({"arg": 0, "ref": {"step": 0}, "strides": [1 << 20, 1]}),
     "store 0 reaches outside its buffer"),
    (lambda d: d["kernels"][0].update(dims=[4, 8, 2]), "reduced and dims differ in length"),
    (lambda d: d["kernels"][0]["reduction"].update(op="__import__"), "reduction.op: not a reduction"),
    (lambda d: d["kernels"][0]["reduction"].update(count=1 << 50), "reduction.count: not an integer"),
    (lambda d: d["kernels"][0]["inputs"][0].update(strides=[8, 1, 1]), "inputs[0].strides: 3 entries"),
    (lambda d: d["kernels"][0]["steps"][0]["attrs"].update(approximate="tanh"), "unknown field 'approximate'"),
    (lambda d: d["kernels"][0].update(library={"op": "nll_loss", "attrs": {}, "strides": [[8, 1]]}),
     "a library kernel has no loop nest"),
])
def test_forged_frames_fed_to_the_supervisor_are_refused(forge, message):
    """class 1: forged descriptions, straight to serve_request over a socketpair"""
    d = kernel_description()
    forge(d)
    answer, library = _serve(_frame(d))
    assert library is None and answer["error"].startswith("refused kernel description: kernel 0")
    assert message in answer["error"], answer["error"]


@pytest.mark.parametrize("frame, message", [
    (b"\xff\xff\xff\xff", "exceeds"),
    (_frame(b"[" * 100_000 + b"]" * 100_000), "unreadable compile request"),
    (_frame(b"\xc3\x28 not utf-8"), "unreadable compile request"),
    (struct.pack("!I", 1000) + b"{}", "unreadable compile request"),        # a frame that stalls half-sent
])
def test_broken_framing_is_a_protocol_error_in_bounded_time(frame, message):
    """class 1: raw bytes to the broker socket, at the supervisor"""
    started = time.monotonic()
    with pytest.raises(compile_broker.ProtocolError, match=message):
        _serve(frame, budget_s=1.0)
    assert time.monotonic() - started < 2


def test_a_well_formed_description_compiles_at_the_supervisor():
    answer, library = _serve(_frame(kernel_description()))
    assert answer == {"ok": True} and library.startswith(b"\x7fELF")


# ---- the kernel cache is no channel between clients -----------------------------------------------

def test_cache_entries_are_hits_only_for_the_client_that_made_them(monkeypatch):
    """class 1: the cache timing channel across clients (at the supervisor: who compiles)"""
    compiles = []
    real = compile_broker.compile_confined
    monkeypatch.setattr(compile_broker, "compile_confined", lambda *a: (compiles.append(1), real(*a))[1])
    d = kernel_description(shape=(3, 1000 + secrets.randbelow(10_000)))
    alice, bob = secrets.token_hex(16), secrets.token_hex(16)
    compile_broker.compile_description(d, 20, 1024, alice)
    compile_broker.compile_description(d, 20, 1024, alice)
    assert len(compiles) == 1                                   # alice's second compile is a hit
    compile_broker.compile_description(d, 20, 1024, bob)
    assert len(compiles) == 2                                   # bob pays as if nobody had compiled it
    compile_broker.compile_description(d, 20, 1024, None)
    compile_broker.compile_description(d, 20, 1024, None)
    assert len(compiles) == 4                                   # no partition: no cache at all
    compile_broker.compile_description(d, 20, 1024, "../" + alice)
    assert len(compiles) == 5                                   # a malformed partition is none
    compile_broker.compile_description(d, 20, 1024, compile_broker.SHARED_PARTITION)
    compile_broker.compile_description(d, 20, 1024, secrets.token_hex(16))
    assert len(compiles) == 6                                   # the trusted side's entries are everyone's


def test_a_run_cannot_time_another_clients_compile(attack, live_server):
    """class 1: the cache timing channel across clients (two clients of the live server)"""
    description = kernel_description(shape=(3, 1000 + secrets.randbelow(50_000)))   # nobody compiled it
    probe = f'''
import json, time
from engine.codegen import cc
d = json.loads({json.dumps(description)!r})
started = time.perf_counter()
cc.compile_kernels(d)
print(round((time.perf_counter() - started) * 1000, 1))
'''
    first = attack(probe)                             # client 127.0.0.1 compiles it
    again = attack(probe)                             # ... and hits its own entry
    other = httpx.Client(transport=httpx.HTTPTransport(local_address="127.0.0.2"))
    try:
        response = other.post(live_server.url + "/api/run", json={"code": probe, "options": {}},
                              headers={"Origin": live_server.origin}, timeout=30)
    finally:
        other.close()
    assert response.status_code == 200, response.text[:300]
    stranger = response.json()
    assert first["ok"] and again["ok"] and stranger["ok"], (first["error"], again["error"], stranger["error"])
    cold, warm, probe_ms = (float(r["stdout"]) for r in (first, again, stranger))
    # a hit is what the channel would read; the stranger's compile costs what a cold one does
    assert warm < cold / 3, (cold, warm)
    assert probe_ms > 3 * warm, (cold, warm, probe_ms)
