"""The engine's warnings and graph titles carry the page's message key and parameters beside their
English (issue 17, item 7; engine/hooks.py Message, engine/record/messages.py): every key the
gallery's captures produce is in every catalog with the same placeholders, every parameter is one
the text uses, and the English catalog words a message as the record's English says it."""
import json
import re
from pathlib import Path

import pytest

from app.routes.examples import load_examples
from engine.hooks import Message
from engine.record.messages import attach
from engine.runner import run_user_code

ROOT = Path(__file__).resolve().parents[2]
CATALOGS = {lang: json.loads((ROOT / f"static/i18n/{lang}.json").read_text()) for lang in ("en", "zh-CN")}
CAPTURING = ("05_tf_function_control_flow", "06_trace_vs_script", "15_jax_jaxpr_grad_jit_vmap")
# the calls table's wording of a stale reason (static/js/calls.js) is fuller than the warning's English
FULLER = {"calls.stale_bool", "calls.stale_value"}


def placeholders(text: str) -> set[str]:
    return set(re.findall(r"\{(\w+)\}", text))


@pytest.fixture(scope="module")
def records() -> dict:
    """~4 s: three runs, the first of TensorFlow's and JAX's facades in this process (their imports)."""
    examples = {ex["id"]: ex for ex in load_examples()}
    return {name: json.loads(json.dumps(run_user_code(examples[name]["code"], {}))) for name in CAPTURING}


def messages(record: dict):
    """(English, message) for every warning and title of `record` that has one."""
    for holder in [record, *record["graphs"]]:
        for text, msg in zip(holder.get("warnings", []), holder.get("warning_messages", [])):
            if msg is not None:
                yield text, msg
        if "title_message" in holder:
            yield holder["title"], holder["title_message"]


def english(msg: dict) -> str:
    params = {k: english(v) if isinstance(v, dict) else v for k, v in msg["params"].items()}
    return CATALOGS["en"][msg["key"]].format(**params)


def nested(msg: dict):
    yield msg
    for v in msg["params"].values():
        if isinstance(v, dict):
            yield from nested(v)


def test_the_examples_warnings_and_titles_have_messages_every_catalog_words(records):
    keys = set()
    for name, record in records.items():
        found = list(messages(record))
        assert found, name
        for text, msg in found:
            for m in nested(msg):
                keys.add(m["key"])
                for lang, catalog in CATALOGS.items():
                    assert m["key"] in catalog, (lang, m["key"])
                    assert placeholders(catalog[m["key"]]) == set(m["params"]), (lang, m["key"])
            if not any(m["key"] in FULLER for m in nested(msg)):
                assert english(msg) == text
    assert {"warning.first_call", "warning.retraced", "warning.retraced_run", "warning.tracer",
            "warning.stale_trace_at", "title.trace", "title.traced"} <= keys


def test_the_stale_warning_nests_its_reason_and_the_traced_title(records):
    record = records["06_trace_vs_script"]
    stale = next(m for m in record["warning_messages"] if m and m["key"] == "warning.stale_trace_at")
    assert stale["params"]["title"] == {"key": "title.traced", "params": {"name": "my_model"}}
    assert stale["params"]["reason"]["key"] == "calls.stale_bool"
    assert stale["params"]["reason"]["params"]["traced"] == {"key": "calls.true", "params": {}}


def test_a_message_is_its_english_everywhere_a_string_is():
    m = Message("warning.tracer", "TracerWarning at line 3: x", line=3, quote="x")
    assert m == "TracerWarning at line 3: x" and json.dumps([m]) == '["TracerWarning at line 3: x"]'
    import copy
    import pickle
    for again in (copy.deepcopy(m), pickle.loads(pickle.dumps(m))):
        assert again == m and again.json() == m.json()


def test_only_lists_with_a_message_get_message_fields():
    record = attach({"warnings": ["plain"], "graphs": [{"title": "t", "warnings": [Message("warning.first_call", "first call: traced")]}]})
    assert "warning_messages" not in record and "title_message" not in record["graphs"][0]
    assert record["graphs"][0]["warning_messages"] == [{"key": "warning.first_call", "params": {}}]


def _message_calls():
    """(file, key, keyword names) of every Message("literal key", ...) written in engine/."""
    import ast
    for path in sorted((ROOT / "engine").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if (isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "Message"
                    and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
                yield path.relative_to(ROOT), node.args[0].value, {k.arg for k in node.keywords}


def test_every_message_the_engine_writes_is_in_every_catalog_with_its_parameters():
    calls = list(_message_calls())
    assert len(calls) >= 20
    for path, key, params in calls:
        for lang, catalog in CATALOGS.items():
            assert key in catalog, (str(path), lang, key)
            assert placeholders(catalog[key]) == params, (str(path), lang, key)


# keys the engine makes from parts (engine/capture/specialisation.py: its verb; tf.function's input_signature)
MADE_KEYS = {"warning.retraced": {"quote"}, "warning.recompiled": {"quote"}, "warning.retraced_run": {"label", "quote"},
             "warning.recompiled_run": {"label", "quote"}, "warning.frequent_retraced": {"n", "label"},
             "warning.frequent_recompiled": {"n", "label"}, "warning.retraced_signature": {"quote"},
             "warning.retraced_run_signature": {"label", "quote"}, "calls.true": set(), "calls.false": set()}


def test_the_keys_made_from_parts_are_in_every_catalog():
    for key, params in MADE_KEYS.items():
        for lang, catalog in CATALOGS.items():
            assert placeholders(catalog[key]) == params, (lang, key)
