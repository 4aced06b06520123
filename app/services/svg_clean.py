"""The SVG that `dot` wrote, rewritten from an allowlist before it leaves the server.

Labels are escaped before they reach `dot` (dot_source.py); this is the second wall, for
whatever a Graphviz version, a plugin or a mistake of ours lets through. The page inserts the
drawing into itself, so only what it needs survives: shapes, text, groups with their `id` and
`class` (graphview.js finds `g.node`, `g.cluster`, `g.graph` and its `transform`, and the
`viewBox`). Links (`<a>`) are unwrapped to their children; images, scripts, `foreignObject`,
`use`, styles and every unknown element go with their children; every attribute not listed
(so every `on*`, `href`, `xlink:*`, `style`) is dropped, and a `url(...)` may only point
inside the drawing (`url(#gradient)`).

Parsing is expat's, told to refuse what could make it read or expand more than the text:
a DOCTYPE's internal subset, entity declarations, undeclared (skipped) entities."""
from __future__ import annotations

import re
from xml.parsers import expat

SVG_NS = "http://www.w3.org/2000/svg"

KEEP = frozenset({"svg", "g", "title", "desc", "path", "polygon", "polyline", "line", "ellipse",
                  "circle", "rect", "text", "tspan", "defs", "linearGradient", "radialGradient", "stop"})
UNWRAP = frozenset({"a"})            # Graphviz wraps nodes with a tooltip in <a xlink:title>
ATTRIBUTES = frozenset({
    "id", "class", "transform", "viewBox", "width", "height", "preserveAspectRatio", "version",
    "x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r", "rx", "ry", "fx", "fy", "points", "d",
    "fill", "fill-opacity", "stroke", "stroke-width", "stroke-dasharray", "stroke-opacity",
    "stroke-linecap", "stroke-linejoin", "opacity", "font-family", "font-size", "font-weight",
    "font-style", "text-anchor", "text-decoration", "baseline-shift",
    "offset", "stop-color", "stop-opacity", "gradientUnits", "gradientTransform"})
_URL = re.compile(r"url\s*\(", re.IGNORECASE)
_LOCAL_URL = re.compile(r"url\(#[A-Za-z0-9_.:-]+\)")


class SvgRefused(ValueError):
    """The SVG is not one this module will pass on (not SVG, not well-formed, or DTD tricks)."""


_SPECIAL = re.compile(r'[&<>"\n\r\t]')     # what _escape may change: most values (numbers, ids) have none


def _escape(text: str, attribute: bool = False) -> str:
    if not _SPECIAL.search(text):
        return text
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    if attribute:   # a raw line break or tab in an attribute would read back as a space
        text = text.replace('"', "&quot;").replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;")
    return text


def _attribute_ok(name: str, value: str) -> bool:
    if name not in ATTRIBUTES:
        return False
    # (a url( needs its parenthesis: most values have none, and skip the search)
    return "(" not in value or not _URL.search(value) or bool(_LOCAL_URL.fullmatch(value.strip()))


def clean_svg(data: bytes) -> bytes:
    """The allowlisted rewrite of the SVG document `data` (UTF-8 XML). Raises SvgRefused."""
    out: list[str] = ['<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n']
    # one entry per open element: "keep", "unwrap" or "drop" (a dropped element's subtree)
    stack: list[str] = []
    dropping = 0          # how many of the open elements are being dropped

    def refuse(what: str):
        def handler(*_args):
            raise SvgRefused(what)
        return handler

    def doctype(_name, _system_id, _public_id, has_internal_subset):
        if has_internal_subset:
            raise SvgRefused("a DOCTYPE with an internal subset")

    def start(qname: str, attrs: dict):
        nonlocal dropping
        ns, _, tag = qname.rpartition(" ")
        if not stack and (ns != SVG_NS or tag != "svg"):
            raise SvgRefused("the document is not an <svg>")
        if dropping or ns != SVG_NS or (tag not in KEEP and tag not in UNWRAP):
            dropping += 1
            stack.append("drop")
            return
        if tag in UNWRAP:
            stack.append("unwrap")
            return
        stack.append("keep")
        kept = [f' {k}="{_escape(v, attribute=True)}"' for k, v in attrs.items() if _attribute_ok(k, v)]
        if len(stack) == 1:
            kept.insert(0, f' xmlns="{SVG_NS}"')
        out.append(f"<{tag}{''.join(kept)}>")

    def end(qname: str):
        nonlocal dropping
        what = stack.pop()
        if what == "drop":
            dropping -= 1
        elif what == "keep":
            out.append(f"</{qname.rpartition(' ')[2]}>")

    def text(data: str):
        if not dropping:
            out.append(_escape(data))

    parser = expat.ParserCreate("UTF-8", namespace_separator=" ")
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.UseForeignDTD(False)
    parser.StartDoctypeDeclHandler = doctype
    parser.EntityDeclHandler = refuse("an entity declaration")
    parser.UnparsedEntityDeclHandler = refuse("an unparsed entity declaration")
    parser.NotationDeclHandler = refuse("a notation declaration")
    parser.ExternalEntityRefHandler = refuse("an external entity reference")
    parser.SkippedEntityHandler = refuse("a reference to an undeclared entity")
    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = text
    parser.buffer_text = True
    try:
        parser.Parse(data, True)
    except expat.ExpatError as exc:
        raise SvgRefused(f"not well-formed XML ({exc})") from None
    if stack or len(out) == 1:
        raise SvgRefused("the document is empty or unfinished")
    return "".join(out).encode("utf-8")
