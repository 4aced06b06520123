"""The page and its API helpers: served with the vendored editor, the catalogs, and op cards."""
import json

from app.config import ROOT


def test_page_loads_module_scripts_only_from_this_server(client):
    html = client.get("/").text
    assert 'type="module"' in html and "/static/js/app.js" in html
    assert "http://" not in html and "https://" not in html


def test_vendored_editor_is_served(client):
    r = client.get("/static/vendor/codemirror.js")
    assert r.status_code == 200 and "EditorView" in r.text


def test_catalogs_have_the_same_keys():
    en = json.loads((ROOT / "static/i18n/en.json").read_text())
    zh = json.loads((ROOT / "static/i18n/zh-CN.json").read_text())
    assert set(en) == set(zh)
    assert all(zh[k] for k in zh)


def test_catalog_covers_every_key_the_page_uses():
    import re
    en = json.loads((ROOT / "static/i18n/en.json").read_text())
    used = set()
    for path in list((ROOT / "static/js").glob("*.js")) + [ROOT / "templates/index.html"]:
        text = path.read_text()
        used |= set(re.findall(r"""\bt\(\s*["']([\w.]+)["']""", text))
        used |= set(re.findall(r'data-i18n(?:-title|-placeholder|-aria)?="([\w.]+)"', text))
    missing = sorted(k for k in used if k not in en)
    assert not missing, missing


def test_op_cards_come_from_the_registry(client):
    body = client.get("/api/ops").json()
    mul = body["ops"]["mul"]
    assert mul["formula"] == "a * b" and "grad" in mul["rule"] and mul["kind"] == "elementwise"
    assert body["grad_fns"]["MulBackward0"] == "mul"


def test_catalog_has_the_keys_built_at_run_time():
    """Keys the page composes from record values (op kinds, error kinds, captures...)."""
    from engine.ops.registry import KINDS
    en = json.loads((ROOT / "static/i18n/en.json").read_text())
    composed = [f"kind.{k}" for k in KINDS]
    composed += [f"error.{k}" for k in ["syntax_error", "runtime_error", "timeout", "memory_limit", "output_limit",
                                        "security_violation", "unsupported", "internal_error"]]
    composed += [f"capture.{k}" for k in ["trace", "script", "function", "compile", "session", "none"]]
    composed += [f"passes.stat_{k}" for k in ["nodes", "kernels", "peak_bytes"]]
    composed += [f"empty.{k}{s}" for k in ["forward", "backward", "not_run"] for s in ("", "_title")]
    assert [k for k in composed if k not in en] == []
