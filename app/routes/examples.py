"""GET /api/examples: the gallery, read from examples/*.py and their `# key: value` header lines.

Each example's comments, and its summary, are also given in Chinese (`code_zh`, `summary_zh`) from
examples/i18n/zh-CN.json, English comment text -> its translation: only comment tokens change, so
the program, its lines and what it records are the same in either language."""
from __future__ import annotations

import io
import json
import tokenize
from functools import lru_cache

from fastapi import APIRouter

from app.config import ROOT

router = APIRouter()
EXAMPLES_DIR = ROOT / "examples"
HEADER_KEYS = ("title", "title_zh", "concept")
COMMENTS_ZH = EXAMPLES_DIR / "i18n" / "zh-CN.json"


def translate_comments(code: str, translations: dict[str, str]) -> str:
    """`code` with each comment whose text (after `# `) has a translation replaced by it; the
    rest of every line, and the number of lines, unchanged. A comment without one stays (an
    output such as `# tensor([2., 2.])`, an op name)."""
    lines = code.splitlines(keepends=True)
    try:
        tokens = [tok for tok in tokenize.generate_tokens(io.StringIO(code).readline) if tok.type == tokenize.COMMENT]
    except (tokenize.TokenError, SyntaxError):
        return code
    for tok in reversed(tokens):            # right to left: earlier columns stay valid
        text = tok.string[1:].strip()
        if text in translations:
            row, col = tok.start
            line = lines[row - 1]
            lines[row - 1] = line[:col] + "# " + translations[text] + line[col + len(tok.string):]
    return "".join(lines)


def parse_example(name: str, source: str, translations: dict[str, str] | None = None) -> dict:
    """Title, Chinese title and concepts come from the leading `# key: value` lines, which the
    gallery shows and the editor does not; the explanatory comments stay in the code."""
    meta = {"id": name, "title": name, "title_zh": None, "concepts": [], "summary": ""}
    summary, kept = [], []
    lines = source.splitlines(keepends=True)
    header = True
    for line in lines:
        header = header and line.startswith("#")
        key, sep, value = line[1:].strip().partition(":") if header else ("", "", "")
        if header and sep and key in HEADER_KEYS:
            if key == "concept":
                meta["concepts"] = [c.strip() for c in value.split(",") if c.strip()]
            else:
                meta[key] = value.strip()
            continue
        if header:
            summary.append(line[1:].strip())
        kept.append(line)
    meta["summary"] = " ".join(summary)
    meta["code"] = "".join(kept)
    translations = translations or {}
    meta["summary_zh"] = "".join(translations.get(line, line) for line in summary) or None
    meta["code_zh"] = translate_comments(meta["code"], translations)
    return meta


@lru_cache(maxsize=1)
def load_examples() -> tuple[dict, ...]:
    translations = json.loads(COMMENTS_ZH.read_text(encoding="utf-8")) if COMMENTS_ZH.exists() else {}
    return tuple(parse_example(path.stem, path.read_text(encoding="utf-8"), translations)
                 for path in sorted(EXAMPLES_DIR.glob("*.py")))


@router.get("/api/examples")
def list_examples():
    return {"examples": list(load_examples())}
