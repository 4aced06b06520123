"""Security headers on every response: a Content-Security-Policy, no MIME sniffing, no referrer.

The page's policy allows only this server's own scripts (no inline script, no eval), styles,
images (plus data: and blob: URLs: the PNG export draws the SVG through one) and connections.
The one inline style it admits is the editor's theme (CodeMirror writes a <style> element), by a
nonce made for each response and handed to the template as `request.state.csp_nonce`. A run
record's text never becomes markup on the page (static/js/dom.js), so this is the second layer:
were some string ever parsed as HTML, a script in it would still not run. Every other response
(JSON, SVG drawings, static files) gets a policy that allows nothing, so a drawing or an answer
opened on its own cannot run anything either.

No page may be framed (frame-ancestors 'none', X-Frame-Options: DENY: a framing page could lay
its own buttons over Run or Share — clickjacking), except the embed page: the page at `/` or a
share link `/s/{id}` asked with `?embed=1` (exactly), which the origins in
DAGSCOPE_EMBED_ANCESTORS may frame (default 'self': this server's own pages only). An entry that
is not an origin (scheme://host[:port], a leading `*.` allowed in the host) or 'self' is ignored
(so a setting can never add another directive to the policy); none left: 'none'.
"""
from __future__ import annotations

import re
import secrets
from urllib.parse import parse_qs

from app.config import get_settings

PAGE_POLICY = ("default-src 'self'; script-src 'self'; style-src 'self' 'nonce-{nonce}'; "
               "img-src 'self' data: blob:; connect-src 'self'; font-src 'self'; object-src 'none'; "
               "base-uri 'none'; frame-ancestors {ancestors}; form-action 'self'")
OTHER_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
COMMON = [(b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer")]


ORIGIN = re.compile(r"https?://(\*\.)?[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?(?::\d{1,5})?|https?://\[[0-9A-Fa-f:.]{2,45}\](?::\d{1,5})?")
EMBED_PATHS = re.compile(r"/|/s/[^/]+")


def embed_ancestors(setting: tuple) -> list[str]:
    """The frame-ancestors sources of the embed page: the setting's origins and 'self', nothing else."""
    return [a for a in setting if a == "'self'" or ORIGIN.fullmatch(a)]


def is_embed(scope) -> bool:
    """The embed page's request: GET / or /s/{id} with ?embed=1."""
    if scope.get("method") not in ("GET", "HEAD") or not EMBED_PATHS.fullmatch(scope.get("path", "")):
        return False
    return parse_qs(scope.get("query_string", b"").decode("latin-1")).get("embed") == ["1"]


def policy_for(content_type: bytes, nonce: str, ancestors: list[str] | None = None) -> bytes:
    """The policy of a response; `ancestors`: who may frame it (an embed page), else no one."""
    is_page = content_type.split(b";")[0].strip().lower() == b"text/html"
    if not is_page:
        return OTHER_POLICY.encode()
    return PAGE_POLICY.format(nonce=nonce, ancestors=" ".join(ancestors) if ancestors else "'none'").encode()


def frame_options(ancestors: list[str] | None) -> bytes | None:
    """X-Frame-Options for browsers without frame-ancestors: DENY, SAMEORIGIN for 'self' alone, and
    none when other origins may frame the page (it cannot name them; frame-ancestors governs)."""
    if not ancestors:
        return b"DENY"
    return b"SAMEORIGIN" if ancestors == ["'self'"] else None


class SecurityHeaders:
    """Pure ASGI: adds the headers to each response's start, unless a route already set them."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        nonce = secrets.token_urlsafe(18)
        scope.setdefault("state", {})["csp_nonce"] = nonce      # request.state.csp_nonce
        ancestors = embed_ancestors(get_settings().embed_ancestors) if is_embed(scope) else None

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                content_type = next((v for k, v in headers if k.lower() == b"content-type"), b"")
                is_page = content_type.split(b";")[0].strip().lower() == b"text/html"
                framing = ancestors if is_page else None
                extra = [(b"content-security-policy", policy_for(content_type, nonce, framing)), *COMMON]
                if (xfo := frame_options(framing)) is not None:
                    extra.append((b"x-frame-options", xfo))
                headers += [(name, value) for name, value in extra if name not in present]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)
