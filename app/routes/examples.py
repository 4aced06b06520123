"""GET /api/examples: the gallery, read from examples/*.py and their `# key: value` header lines."""
from __future__ import annotations

from functools import lru_cache

from fastapi import APIRouter

from app.config import ROOT

router = APIRouter()
EXAMPLES_DIR = ROOT / "examples"
HEADER_KEYS = ("title", "title_zh", "concept")


def parse_example(name: str, code: str) -> dict:
    """Title, Chinese title and concepts come from the leading comment lines; the code is kept whole."""
    meta = {"id": name, "title": name, "title_zh": None, "concepts": [], "summary": "", "code": code}
    summary = []
    for line in code.splitlines():
        if not line.startswith("#"):
            break
        text = line[1:].strip()
        key, sep, value = text.partition(":")
        if sep and key in HEADER_KEYS:
            if key == "concept":
                meta["concepts"] = [c.strip() for c in value.split(",") if c.strip()]
            else:
                meta[key] = value.strip()
        else:
            summary.append(text)
    meta["summary"] = " ".join(summary)
    return meta


@lru_cache(maxsize=1)
def load_examples() -> tuple[dict, ...]:
    return tuple(parse_example(path.stem, path.read_text(encoding="utf-8"))
                 for path in sorted(EXAMPLES_DIR.glob("*.py")))


@router.get("/api/examples")
def list_examples():
    return {"examples": list(load_examples())}
