"""Security headers on every response: a Content-Security-Policy, no MIME sniffing, no referrer.

The page's policy allows only this server's own scripts (no inline script, no eval), styles,
images (plus data: and blob: URLs: the PNG export draws the SVG through one) and connections.
The one inline style it admits is the editor's theme (CodeMirror writes a <style> element), by a
nonce made for each response and handed to the template as `request.state.csp_nonce`. A run
record's text never becomes markup on the page (static/js/dom.js), so this is the second layer:
were some string ever parsed as HTML, a script in it would still not run. Every other response
(JSON, SVG drawings, static files) gets a policy that allows nothing, so a drawing or an answer
opened on its own cannot run anything either.
"""
from __future__ import annotations

import secrets

PAGE_POLICY = ("default-src 'self'; script-src 'self'; style-src 'self' 'nonce-{nonce}'; "
               "img-src 'self' data: blob:; connect-src 'self'; font-src 'self'; object-src 'none'; "
               "base-uri 'none'; frame-ancestors 'none'; form-action 'self'")
OTHER_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
COMMON = [(b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer"),
          (b"x-frame-options", b"DENY")]


def policy_for(content_type: bytes, nonce: str) -> bytes:
    is_page = content_type.split(b";")[0].strip().lower() == b"text/html"
    return (PAGE_POLICY.format(nonce=nonce) if is_page else OTHER_POLICY).encode()


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

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                content_type = next((v for k, v in headers if k.lower() == b"content-type"), b"")
                extra = [(b"content-security-policy", policy_for(content_type, nonce)), *COMMON]
                headers += [(name, value) for name, value in extra if name not in present]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)
