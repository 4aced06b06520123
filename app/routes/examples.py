"""GET /api/examples: the gallery, read from examples/*.py and their `# key: value` header lines."""
from __future__ import annotations

from functools import lru_cache

from fastapi import APIRouter

from app.config import ROOT

router = APIRouter()
EXAMPLES_DIR = ROOT / "examples"
HEADER_KEYS = ("title", "title_zh", "concept")


def parse_example(name: str, source: str) -> dict:
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
    return meta


@lru_cache(maxsize=1)
def load_examples() -> tuple[dict, ...]:
    return tuple(parse_example(path.stem, path.read_text(encoding="utf-8"))
                 for path in sorted(EXAMPLES_DIR.glob("*.py")))


@router.get("/api/examples")
def list_examples():
    return {"examples": list(load_examples())}
