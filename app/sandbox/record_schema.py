"""The run record as the parent accepts it from a child: parsed strictly, checked against a schema.

The record is built in the address space of the pasted code, so it is the program's own speech:
every byte of it may be forged. Here it becomes data the server may pass on:
- parsed as strict JSON (no NaN/Infinity, no number that overflows to infinity), not deeper than
  MAX_DEPTH, no list, object or string larger than the bounds below;
- only the fields a program may legitimately report about itself are kept (`stdout`, `stderr`,
  `output_order`, `warnings`, `error`, `graphs`, `summaries`); `ok`, `sandbox`, `limits` and `elapsed_ms` are
  the parent's and are set by `outcome.judge`, never taken from here;
- each kept field is checked for its type and bounds; a field that fails is left out (or cut,
  for over-long text) with a warning saying so, a graph that fails is left out whole, and an
  error that fails becomes an `internal_error` saying the record was malformed.
`Malformed` is raised only when nothing of the record can be believed (not JSON, too deep, ...).
"""
from __future__ import annotations

import json
import re

MAX_DEPTH = 48                  # the engine's records reach 17
MAX_LIST = 200_000              # entries of any one list (a tensor preview is far smaller)
MAX_KEYS = 400                  # keys of any one object
MAX_KEY_CHARS = 200
MAX_INT = 2 ** 64
MAX_GRAPHS = 200
MAX_WARNINGS = 1_000
MAX_WARNING_CHARS = 10_000
MAX_ORDER_ENTRIES = 2_000       # engine.runner.MAX_ORDER_ENTRIES
MAX_MESSAGE_CHARS = 4_000       # engine.runner.MAX_MESSAGE_CHARS (+ its "cut" note)
MAX_TRACEBACK_CHARS = 20_000    # engine.runner.MAX_TRACEBACK_CHARS (+ its "cut" note)
MAX_NAME_CHARS = 1_000          # a node's op, label, module, name, dtype; a graph's title
CUT_NOTE_ROOM = 200

# Kinds a child may report itself; timeouts and the signals' verdicts are the parent's alone.
CHILD_KINDS = {"syntax_error", "runtime_error", "unsupported", "security_violation", "output_limit",
               "memory_limit", "internal_error"}
GRAPH_KINDS = {"dynamic", "static"}
# The page's wording of an error message the child words (engine/runner.py, app/sandbox/child.py):
# key -> the one kind it may word, so a program cannot word its own error as the server's verdict
CHILD_WORDINGS = {"error_message.printed_too_much": "output_limit", "error_message.wrote_too_much_stderr": "output_limit",
                  "error_message.wrote_too_much_both": "output_limit", "error_message.blocked": "security_violation",
                  "error_message.blocked_by_os": "security_violation", "error_message.exit_status": "runtime_error"}
# A pass note's message for the page (engine/passes/base.py Reason): its catalog key and parameters.
NOTE_FIELDS = {"node", "reason", "key", "params"}
NOTE_KEY = re.compile(r"pass_note\.[a-z_]{1,40}")
PARAM_NAME = re.compile(r"[a-z_]{1,32}")
MAX_PARAMS, MAX_PARAM_ITEMS = 8, 64
# The page's words for the record's English warnings and titles (engine/hooks.py Message): a key of
# these families, its params as a note's, or a message of their own nested up to MAX_MESSAGE_DEPTH.
MESSAGE_KEY = re.compile(r"(warning|title|calls)\.[a-z_]{1,40}")
MAX_MESSAGE_DEPTH = 3
CAPTURES = {None, "trace", "script", "function", "compile", "session", "jit", "vmap", "onnx"}
# Ids the engine makes: g1, n7, b5, %17, output (and dotted or colon-joined forms of these).
ID = re.compile(r"[A-Za-z0-9_%.:\-]{1,80}")
CHILD_FIELDS = ("stdout", "stderr", "output_order", "warnings", "warning_messages", "error", "graphs", "summaries")
# SummaryWriter's values (engine/record/summaries.py keeps within these; a forged record may not)
MAX_SERIES, MAX_POINTS, MAX_HISTOGRAM_TAGS, MAX_SNAPSHOTS, MAX_BINS, MAX_TAG_CHARS = 32, 500, 16, 20, 30, 200
NON_FINITE = {"nan", "inf", "-inf"}
MAX_STEP = 2 ** 53
# a training loop's trajectory (engine/record/trajectory.py keeps within these)
MAX_ITERATIONS, MAX_STEP_ITERATIONS, MAX_STEPS, STRIP = 256, 16, 4000, 8
TRAJECTORY_FIELDS = {"iterations", "total", "every", "loss", "series", "tensors", "steps"}


class Malformed(ValueError):
    """Nothing of the record can be believed; the message says why."""


def parse(data: bytes) -> dict:
    """Strict JSON of a bounded shape, or Malformed."""
    try:
        record = json.loads(data, parse_constant=_no_constant)    # (1e999, an infinity, is caught below)
    except RecursionError:
        raise Malformed("it is nested too deeply") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise Malformed(f"it is not strict JSON ({_short(exc)})") from None
    if not isinstance(record, dict):
        raise Malformed(f"it is a JSON {type(record).__name__}, not an object")
    _check_bounds(record)
    return record


def validate(raw: dict, code_lines: int, max_text_chars: int) -> dict:
    """The fields of `raw` a program may report, each checked; problems are named in `warnings`."""
    notes: list[str] = []
    record = {"stdout": _text(raw.get("stdout", ""), "stdout", max_text_chars + CUT_NOTE_ROOM, notes),
              "stderr": _text(raw.get("stderr", ""), "stderr", max_text_chars + CUT_NOTE_ROOM, notes)}
    record["output_order"] = _output_order(raw.get("output_order", []), record["stdout"], record["stderr"], notes)
    record["warnings"] = _warnings(raw.get("warnings", []), notes)
    if raw.get("warning_messages") is not None:
        if _messages_ok(raw["warning_messages"], len(record["warnings"])):
            record["warning_messages"] = raw["warning_messages"]
        else:
            notes.append(Message("warning.record_bad_messages",
                                 "The run's record had malformed warning messages; the warnings are shown as written."))
    record["error"] = _error(raw.get("error"), code_lines)
    record["graphs"] = _graphs(raw.get("graphs", []), code_lines, notes)
    if raw.get("summaries") is not None:
        summaries = _summaries(raw["summaries"])
        if summaries is None:
            notes.append(Message("warning.record_bad_summaries",
                                 "The run's record had malformed summaries (SummaryWriter's values); they were left out."))
        else:
            record["summaries"] = summaries
    _word_notes(record, notes)
    record["warnings"] += notes
    return record


class Message(str):
    """A note of the server's own in the record's warnings: its English, and the page's catalog key
    and parameters (as engine/hooks.py's Message, which this layer does not import)."""

    def __new__(cls, key: str, text: str, **params):
        self = super().__new__(cls, text)
        self.key, self.params = key, params
        return self

    def json(self) -> dict:
        return {"key": self.key, "params": self.params}


def _word_notes(record: dict, notes: list) -> None:
    """The server's own notes after the record's warnings, with their wording beside them
    (engine/record/messages.py's `warning_messages`: one entry per warning, null for none)."""
    if not notes:
        return
    said = record.get("warning_messages") or []
    record["warning_messages"] = [*said, *[None] * (len(record["warnings"]) - len(said)),
                                  *[note.json() for note in notes]]


def malformed_error(why: str) -> dict:
    return {"kind": "internal_error", "type": None, "line": None, "traceback": "",
            "message": f"the run's record was malformed and was not used: {why}",
            "wording": {"key": "error_message.malformed", "params": {"quote": why[:900]}}}


# -- parsing ---------------------------------------------------------------------------------

def _no_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def _check_bounds(root) -> None:
    """Depth, sizes and numbers of the whole tree, without recursion (the tree is hostile). A
    float literal too large for a double (1e999) parses as an infinity: refused here, so the
    parser keeps its fast path (a parse_float hook would be called for every number)."""
    stack = [(root, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise Malformed(f"it is nested deeper than {MAX_DEPTH} levels")
        if isinstance(value, dict):
            if len(value) > MAX_KEYS:
                raise Malformed(f"an object has {len(value)} keys (at most {MAX_KEYS})")
            for key, item in value.items():
                if len(key) > MAX_KEY_CHARS:
                    raise Malformed(f"a key is {len(key)} characters long (at most {MAX_KEY_CHARS})")
                if isinstance(item, (dict, list)):
                    stack.append((item, depth + 1))
                else:
                    _check_number(item)
        elif isinstance(value, list):
            if len(value) > MAX_LIST:
                raise Malformed(f"a list has {len(value)} entries (at most {MAX_LIST})")
            for item in value:
                if isinstance(item, (dict, list)):
                    stack.append((item, depth + 1))
                else:
                    _check_number(item)


def _check_number(item) -> None:
    if type(item) is float:
        if item - item != 0.0:               # inf - inf is nan (nan itself cannot parse)
            raise Malformed(f"{item} is not a finite number")
    elif type(item) is int and abs(item) > MAX_INT:
        raise Malformed("an integer is out of range")


# -- fields ----------------------------------------------------------------------------------

def _text(value, name: str, limit: int, notes: list[str]) -> str:
    if not isinstance(value, str):
        notes.append(Message("warning.record_bad_field", f"The run's record had a malformed {name} ({_type(value)}); "
                             "it was left out.", name=name, type=_type(value)))
        return ""
    return _cut(value, limit)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + f"... [cut by the server: {len(text)} characters in all]"


def _output_order(order, stdout: str, stderr: str, notes: list[str]) -> list:
    """Entries are ["stdout" | "stderr", count] and no stream's counts add up past its text."""
    used = {"stdout": 0, "stderr": 0}
    ok = isinstance(order, list) and len(order) <= MAX_ORDER_ENTRIES
    for entry in order if ok else ():
        if not (isinstance(entry, list) and len(entry) == 2 and entry[0] in used
                and type(entry[1]) is int and entry[1] > 0):
            ok = False
            break
        used[entry[0]] += entry[1]
    if ok and used["stdout"] <= len(stdout) and used["stderr"] <= len(stderr):
        return order
    return []                   # the page then shows stdout, then stderr (no note: harmless)


def _warnings(value, notes: list[str]) -> list[str]:
    if not isinstance(value, list) or len(value) > MAX_WARNINGS or not all(isinstance(w, str) for w in value):
        notes.append(Message("warning.record_bad_warnings", "The run's record had malformed warnings; they were left out."))
        return []
    return [_cut(w, MAX_WARNING_CHARS) for w in value]


def _error(value, code_lines: int) -> dict | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        return malformed_error(f"its error is a {_type(value)}")
    kind = value.get("kind")
    if kind not in CHILD_KINDS:
        return malformed_error("its error kind is not one a program may report")
    type_ = value.get("type")
    if type_ is not None and not (isinstance(type_, str) and len(type_) <= 200
                                  and all(part.isidentifier() for part in type_.split("."))):
        return malformed_error("its error type is not a Python name")
    for field in ("message", "traceback"):
        if not isinstance(value.get(field, ""), str):
            return malformed_error(f"its error {field} is a {_type(value[field])}")
    error = {"kind": kind, "type": type_,
             "message": _cut(value.get("message", ""), MAX_MESSAGE_CHARS + CUT_NOTE_ROOM),
             "line": _line(value.get("line"), code_lines),
             "traceback": _cut(value.get("traceback", ""), MAX_TRACEBACK_CHARS + CUT_NOTE_ROOM)}
    column = value.get("column")
    if kind == "syntax_error" and type(column) is int and 0 <= column <= 1_000_000:
        error["column"] = column
    wording = value.get("wording")
    if (isinstance(wording, dict) and CHILD_WORDINGS.get(wording.get("key")) == kind
            and _params_ok(wording.get("params"), MAX_MESSAGE_DEPTH) and set(wording) == {"key", "params"}):
        error["wording"] = wording       # (else the message is shown as written)
    return error


def _summaries(value) -> dict | None:
    """{"scalars": [{"tag", "points": [[step, value]], "logged"}], "histograms": [{"tag",
    "snapshots": [{"step", "min", "max", "count", "edges", "counts"}], "logged"}]}, or None."""
    if not isinstance(value, dict) or set(value) != {"scalars", "histograms"}:
        return None
    scalars, histograms = value["scalars"], value["histograms"]
    if not (isinstance(scalars, list) and len(scalars) <= MAX_SERIES and isinstance(histograms, list)
            and len(histograms) <= MAX_HISTOGRAM_TAGS):
        return None
    for series, items, limit, check in ((scalars, "points", MAX_POINTS, _point),
                                        (histograms, "snapshots", MAX_SNAPSHOTS, _snapshot)):
        tags = set()
        for entry in series:
            if not (isinstance(entry, dict) and set(entry) == {"tag", items, "logged"}
                    and isinstance(entry["tag"], str) and len(entry["tag"]) <= MAX_TAG_CHARS
                    and entry["tag"] not in tags and _count(entry["logged"])
                    and isinstance(entry[items], list) and len(entry[items]) <= min(limit, entry["logged"])
                    and all(check(item) for item in entry[items])):
                return None
            tags.add(entry["tag"])
    return {"scalars": scalars, "histograms": histograms}


def _count(value) -> bool:
    return type(value) is int and 0 <= value <= MAX_INT


def _step(value) -> bool:
    return type(value) is int and -MAX_STEP <= value <= MAX_STEP


def _finite(value) -> bool:
    return type(value) in (int, float) and value - value == 0


def _point(value) -> bool:
    return (isinstance(value, list) and len(value) == 2 and _step(value[0])
            and (_finite(value[1]) or value[1] in NON_FINITE))


def _snapshot(value) -> bool:
    if not (isinstance(value, dict) and set(value) == {"step", "min", "max", "count", "edges", "counts"}
            and _step(value["step"]) and _count(value["count"])):
        return False
    edges, counts = value["edges"], value["counts"]
    if not (isinstance(counts, list) and len(counts) <= MAX_BINS and all(_count(c) for c in counts)
            and sum(counts) <= value["count"] and isinstance(edges, list)
            and len(edges) == (len(counts) + 1 if counts else 0) and all(_finite(e) for e in edges)
            and all(a <= b for a, b in zip(edges, edges[1:]))):
        return False
    if not counts:
        return value["min"] is None and value["max"] is None
    return _finite(value["min"]) and _finite(value["max"]) and value["min"] <= value["max"]


def _line(value, code_lines: int) -> int | None:
    """A line of the pasted code, or None (a line the code does not have is not believed)."""
    return value if type(value) is int and 1 <= value <= max(code_lines, 1) else None


def _graphs(value, code_lines: int, notes: list[str]) -> list[dict]:
    if not isinstance(value, list):
        notes.append(Message("warning.record_bad_graphs", f"The run's record had malformed graphs ({_type(value)}); "
                             "they were left out.", type=_type(value)))
        return []
    if len(value) > MAX_GRAPHS:
        notes.append(Message("warning.record_many_graphs", f"The run's record had {len(value)} graphs; only the first "
                             f"{MAX_GRAPHS} are shown.", n=len(value), limit=MAX_GRAPHS))
        value = value[:MAX_GRAPHS]
    kept, ids = [], set()
    for i, graph in enumerate(value):
        why = _graph_problem(graph, code_lines)
        if why is None and graph["id"] in ids:
            why = "its id is used twice"
        if why is not None:
            notes.append(Message("warning.record_bad_graph", f"Graph {i + 1} of the run's record was malformed ({why}); "
                                 "it was left out.", n=i + 1, quote=why[:900]))
            continue
        ids.add(graph["id"])
        if "trajectory" in graph and (why := _trajectory_problem(graph["trajectory"], graph)):
            del graph["trajectory"]
            notes.append(Message("warning.record_bad_trajectory", f"Graph {graph['id']}'s training trajectory was "
                                 f"malformed ({why}); it was left out.", id=graph["id"], quote=why[:900]))
        kept.append(graph)
    return kept


def _trajectory_problem(value, graph: dict) -> str | None:
    """Why a graph's `trajectory` cannot be shown, or None (docs/run-record.md, "Trajectory")."""
    if not isinstance(value, dict) or set(value) != TRAJECTORY_FIELDS:
        return "not an object of its fields"
    its, total, every = value["iterations"], value["total"], value["every"]
    if not (_count(total) and total <= MAX_STEP and type(every) is int and 1 <= every <= MAX_STEP):
        return "its total or every is not a count"
    if not (isinstance(its, list) and 2 <= len(its) <= MAX_ITERATIONS and all(_count(i) and i < total for i in its)
            and all(a < b for a, b in zip(its, its[1:]))):
        return "its iterations are not ascending counts below its total"
    k = len(its)
    number = lambda v: _finite(v) or (type(v) is str and v in NON_FINITE)     # noqa: E731
    if not (isinstance(value["loss"], list) and len(value["loss"]) == k
            and all(v is None or number(v) for v in value["loss"])):
        return "its loss is not a number per iteration"
    forward = graph.get("forward") or {}
    nodes = {n["id"] for n in forward.get("nodes", [])}
    for entry in value["series"] if isinstance(value["series"], list) else [None]:
        if not (isinstance(entry, dict) and set(entry) == {"node", "of", "stats", "strip"} and entry["node"] in nodes
                and entry["of"] in ("value", "grad") and isinstance(entry["stats"], list) and len(entry["stats"]) == k
                and isinstance(entry["strip"], list) and len(entry["strip"]) == k):
            return "a series is not a node's summaries per iteration"
        if not all(row is None or (isinstance(row, list) and len(row) == 4 and all(map(number, row)))
                   for row in entry["stats"]):
            return f"node {entry['node']}: its statistics are not four numbers per iteration"
        if not all(isinstance(row, list) and len(row) <= STRIP and all(map(number, row)) for row in entry["strip"]):
            return f"node {entry['node']}: its strip is not up to {STRIP} numbers per iteration"
    for entry in value["tensors"] if isinstance(value["tensors"], list) else [None]:
        if not (isinstance(entry, dict) and set(entry) == {"node", "of", "at"} and entry["node"] in nodes
                and entry["of"] in ("value", "grad") and isinstance(entry["at"], list) and len(entry["at"]) == k):
            return "a tensor entry is not a node's Tensor per iteration"
        for t in entry["at"]:
            if t is not None and not (isinstance(t, dict) and _shape_ok(t.get("shape")) and _name_ok(t.get("dtype"))
                                      and (t.get("values") is None or _is_id(t["values"]))):
                return f"node {entry['node']}: a Tensor has no shape and dtype"
    steps = value["steps"]
    if not (isinstance(steps, list) and len(steps) <= MAX_STEP_ITERATIONS):
        return "its steps are not a short list"
    for entry in steps:
        if not (isinstance(entry, dict) and set(entry) == {"iteration", "steps"} and entry["iteration"] in its
                and isinstance(entry["steps"], list) and len(entry["steps"]) <= MAX_STEPS
                and all(isinstance(step, dict) and isinstance(step.get("grad_in"), list)
                        and isinstance(step.get("grad_out"), list) for step in entry["steps"])):
            return "a kept iteration's steps are not a list of steps"
    return None


def _graph_problem(graph, code_lines: int) -> str | None:
    """Why `graph` cannot be shown, or None; fixes lines the code does not have in place."""
    if not isinstance(graph, dict):
        return f"a {_type(graph)}, not an object"
    if not _is_id(graph.get("id")):
        return "its id is not an id"
    if graph.get("kind") not in GRAPH_KINDS:
        return "its kind is unknown"
    if graph.get("capture") not in CAPTURES:
        return "its capture is unknown"
    if not _name_ok(graph.get("title", "")):
        return "its title is not a short string"
    for side in ("forward", "backward"):
        if graph.get(side) is not None and (why := _dag_problem(graph[side], code_lines)):
            return f"{side}: {why}"
    passes = graph.get("passes", [])
    if not isinstance(passes, list):
        return "its passes are not a list"
    for p in passes:
        if not isinstance(p, dict) or not _name_ok(p.get("name", "")):
            return "a pass is not an object with a name"
        if p.get("graph") is not None and (why := _dag_problem(p["graph"], code_lines)):
            return f"pass {p.get('name')!r}: {why}"
        if (why := _notes_problem(p.get("notes", []))) is not None:
            return f"pass {p.get('name')!r}: {why}"
    for field in ("steps", "kernels", "calls", "warnings", "frozen"):
        if not isinstance(graph.get(field, []), list):
            return f"its {field} are not a list"
    if not all(isinstance(w, str) for w in graph.get("warnings", [])):
        return "its warnings are not strings"
    if "warning_messages" in graph and not _messages_ok(graph["warning_messages"], len(graph.get("warnings", []))):
        return "its warning messages are malformed"
    if "title_message" in graph and not _message_ok(graph["title_message"]):
        return "its title message is malformed"
    for step in graph.get("steps", []):
        # a step past the record's budget of step gradients has grad_in and grad_out null
        if not isinstance(step, dict) or not all(isinstance(step.get(k), list) or step.get(k) is None
                                                 for k in ("grad_in", "grad_out")):
            return "a step is not an object whose grad_in and grad_out are lists or null"
    return None


def _notes_problem(notes) -> str | None:
    """A pass's notes: [{"node", "reason"[, "key", "params"]}], the key a pass_note.* message
    of the page's catalogs and its params ids, names, counts or lists of ids (docs/run-record.md)."""
    if not isinstance(notes, list):
        return "its notes are not a list"
    for note in notes:
        if not (isinstance(note, dict) and {"node", "reason"} <= set(note) <= NOTE_FIELDS):
            return "a note is not an object of node, reason, key and params"
        if not ((note["node"] is None or _is_id(note["node"])) and _name_ok(note["reason"])):
            return "a note's node or reason is malformed"
        if ("key" in note) != ("params" in note):
            return "a note has a key without params, or params without a key"
        if "key" in note and not (isinstance(note["key"], str) and NOTE_KEY.fullmatch(note["key"])
                                  and _params_ok(note["params"])):
            return "a note's key or params are malformed"
    return None


def _messages_ok(messages, n_warnings: int) -> bool:
    """One entry per warning (the record's warnings, not the ones the server adds after them):
    null, or the warning's {key, params}."""
    return (isinstance(messages, list) and len(messages) <= n_warnings
            and all(m is None or _message_ok(m) for m in messages))


def _message_ok(message, depth: int = 1) -> bool:
    return (isinstance(message, dict) and set(message) == {"key", "params"} and isinstance(message["key"], str)
            and MESSAGE_KEY.fullmatch(message["key"]) is not None and _params_ok(message["params"], depth))


def _params_ok(params, depth: int = MAX_MESSAGE_DEPTH) -> bool:
    """A note's or message's params; a message's may hold messages, MAX_MESSAGE_DEPTH deep in all."""
    return (isinstance(params, dict) and len(params) <= MAX_PARAMS
            and all(PARAM_NAME.fullmatch(k) and (_param_value_ok(v) or depth < MAX_MESSAGE_DEPTH
                                                 and _message_ok(v, depth + 1)) for k, v in params.items()))


def _param_value_ok(value) -> bool:
    if isinstance(value, list):
        return len(value) <= MAX_PARAM_ITEMS and all(isinstance(v, str) and _name_ok(v) for v in value)
    return (isinstance(value, str) and _name_ok(value)) or (type(value) is int and abs(value) <= MAX_INT)


def _dag_problem(dag, code_lines: int) -> str | None:
    if not isinstance(dag, dict) or not isinstance(dag.get("nodes"), list) or not isinstance(dag.get("edges", []), list):
        return "not a graph of nodes and edges"
    for node in dag["nodes"]:
        if not isinstance(node, dict) or not _is_id(node.get("id")):
            return "a node has no valid id"
        for field in ("op", "label", "module", "name", "dtype", "kind", "group", "grad_fn"):
            if node.get(field) is not None and not _name_ok(node[field]):
                return f"node {node['id']}: its {field} is not a short string"
        shape = node.get("shape")
        if shape is not None and not _shape_ok(shape):
            return f"node {node['id']}: its shape is not a list of sizes"
        if "line" in node:
            node["line"] = _line(node["line"], code_lines)
        subgraphs = node.get("subgraphs")
        if subgraphs is not None:
            if not isinstance(subgraphs, dict):
                return f"node {node['id']}: its subgraphs are not an object"
            for sub in subgraphs.values():
                if sub is not None and (why := _dag_problem(sub, code_lines)):
                    return f"node {node['id']}: {why}"
    for edge in dag.get("edges", []):
        if not isinstance(edge, dict) or not _is_id(edge.get("src")) or not _is_id(edge.get("dst")):
            return "an edge does not join two ids"
        if edge.get("shape") is not None and not _shape_ok(edge["shape"]):
            return "an edge's shape is not a list of sizes"
    return None


def _is_id(value) -> bool:
    return isinstance(value, str) and ID.fullmatch(value) is not None


def _name_ok(value) -> bool:
    return isinstance(value, str) and len(value) <= MAX_NAME_CHARS


def _shape_ok(shape) -> bool:
    return isinstance(shape, list) and len(shape) <= 64 and all(type(d) is int and d >= 0 for d in shape)


def _type(value) -> str:
    return "null" if value is None else type(value).__name__


def _short(exc: Exception) -> str:
    return str(exc)[:200]
