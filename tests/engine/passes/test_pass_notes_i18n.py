"""Pass notes carry the page's message key and parameters beside their English (issue 17, item 7):
the English catalog says exactly what the engine writes, every language has every key with the
same placeholders, and the notes of the gallery's compiled examples all have a key unless they are
a formula that reads alike in every language."""
import json
import re
from pathlib import Path

import pytest

from app.routes.examples import load_examples
from engine.passes.base import REASON_TEXTS, reason
from engine.runner import run_user_code

ROOT = Path(__file__).resolve().parents[3]
CATALOGS = {lang: json.loads((ROOT / f"static/i18n/{lang}.json").read_text()) for lang in ("en", "zh-CN")}
FORMULA = re.compile(r"[\w*+\-/()., ]+ -> [\w ]+")      # x*1 -> x, neg(neg(x)) -> x


def placeholders(text: str) -> set[str]:
    return set(re.findall(r"\{(\w+)\}", text))


def test_the_english_catalog_is_the_engines_english():
    for key, text in REASON_TEXTS.items():
        assert CATALOGS["en"][f"pass_note.{key}"] == text


@pytest.mark.parametrize("lang", ["zh-CN"])
def test_every_language_words_every_note_with_the_same_placeholders(lang):
    for key, text in REASON_TEXTS.items():
        worded = CATALOGS[lang].get(f"pass_note.{key}")
        assert worded and worded != text, key
        assert placeholders(worded) == placeholders(text), key


def test_a_reason_is_its_english_and_its_message():
    why = reason("fused_elementwise_merge", group="fused_add_0", ties=["%3", "%5"], n=2)
    assert why.text() == "fused into fused_add_0: elementwise, same shape as %3 and %5: 2 loops merge into one"
    assert why.json() == {"key": "pass_note.fused_elementwise_merge",
                          "params": {"group": "fused_add_0", "ties": ["%3", "%5"], "n": 2}}


def test_the_examples_notes_have_keys():
    seen = 0
    for ex in load_examples():
        record = run_user_code(ex["code"], {})
        for g in record["graphs"]:
            for p in g.get("passes") or []:
                for note in p.get("notes", []):
                    seen += 1
                    if "key" not in note:
                        assert FORMULA.fullmatch(note["reason"]), note
                        continue
                    assert note["key"].removeprefix("pass_note.") in REASON_TEXTS
                    text = REASON_TEXTS[note["key"].removeprefix("pass_note.")]
                    params = {k: " and ".join(v) if isinstance(v, list) else v for k, v in note["params"].items()}
                    assert text.format(**params) == note["reason"]
    assert seen > 20
