"""The page never turns data into markup or code (issue 13, class 3): no HTML sink in static/ or
templates/, no inline script or event handler in a template. Values reach the page as DOM text
(static/js/dom.js); a drawing from /api/render is parsed as SVG and cleaned (graphview.js)."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SINKS = re.compile(r"\.innerHTML\b|\.outerHTML\b|insertAdjacentHTML|document\.write|\beval\s*\(|\bnew\s+Function\b"
                   r"|\bFunction\s*\(|createContextualFragment|setHTMLUnsafe|parseHTMLUnsafe|\bsrcdoc\b"
                   r"|\bsetTimeout\s*\(\s*['\"`]|\bsetInterval\s*\(\s*['\"`]")
# The one parse of HTML: dom.js parses the fixed parts of this page's own template literals (never
# a value); graphview.js parses drawings as image/svg+xml only.
PARSERS = {"static/js/dom.js": '"text/html"', "static/js/graphview.js": '"image/svg+xml"'}


def page_files():
    files = sorted([*ROOT.glob("static/**/*.js"), *ROOT.glob("static/**/*.html"), *ROOT.glob("templates/**/*")])
    assert any(f.name == "app.js" for f in files) and any(f.name == "index.html" for f in files)
    return [f for f in files if f.is_file()]


def test_no_html_or_code_sink_in_the_page():
    found = [f"{f.relative_to(ROOT)}:{n}: {line.strip()[:120]}"
             for f in page_files() for n, line in enumerate(f.read_text(errors="replace").splitlines(), 1)
             if SINKS.search(line)]
    assert found == []


def test_html_is_parsed_only_by_the_template_builder_and_svg_only_as_svg():
    for f in page_files():
        text = f.read_text(errors="replace")
        calls = re.findall(r"parseFromString\([^;]*", text)
        where = str(f.relative_to(ROOT))
        if where in PARSERS:
            assert calls and all(PARSERS[where] in c for c in calls), (where, calls)
        else:
            assert calls == [], (where, calls)


def test_templates_have_no_inline_script_or_handler():
    for f in ROOT.glob("templates/**/*.html"):
        text = f.read_text()
        for tag in re.findall(r"<script\b[^>]*>", text):
            assert 'type="application/json"' in tag or " src=" in tag, (f.name, tag)    # data blocks only
        for body in re.findall(r"<script\b(?![^>]*\bsrc=)[^>]*>(.*?)</script>", text, re.S):
            assert "tojson" in body and "<" not in body.replace("{{", "").replace("}}", ""), body
        assert not re.search(r"\son[a-z]+\s*=", text, re.I), f.name
        assert "javascript:" not in text.lower()


def test_the_grep_finds_what_it_is_for(tmp_path):
    """The patterns match each sink as it is usually spelled (the test above cannot pass vacuously)."""
    for line in ("el.innerHTML = x", "el.outerHTML=x", "el.insertAdjacentHTML('beforeend', x)", "document.write(x)",
                 "eval(code)", "new Function('a', b)", "setTimeout('go()', 1)", "range.createContextualFragment(x)"):
        assert SINKS.search(line), line
    for line in ("el.textContent = x", "el.replaceChildren(node)", "evaluate(x)", "setTimeout(() => go(), 1)"):
        assert not SINKS.search(line), line
