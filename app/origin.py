"""Who may drive this server from a browser: the Host it is reached by, the Origin of a
state-changing request, and a JSON content type on API writes.

Why: a web page the teacher visits can make the browser talk to Dagscope on localhost. With
DNS rebinding (the page's own name re-resolved to 127.0.0.1) it even reads the answers; only the
Host header then gives it away, so a Host that is not this server's name is refused (400).
A plain cross-site form post needs no rebinding: its Origin (or Sec-Fetch-Site: cross-site)
names another site (403), and a form cannot send application/json at all (415) - only a
script can, and a cross-site script's JSON request needs a CORS preflight this server never
grants.
"""
from __future__ import annotations

import functools
import ipaddress
import socket
from urllib.parse import urlsplit

from app.config import get_settings
from app.responses import reply

LOCAL_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})
WILDCARD_HOSTS = ("0.0.0.0", "::", "")
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})
DEFAULT_PORTS = {"http": 80, "https": 443}


def split_host(authority: str) -> tuple[str, int | None]:
    """'Example.org:8000' -> ('example.org', 8000); '[::1]:80' -> ('::1', 80). Raises ValueError."""
    authority = authority.strip().lower()
    if authority.startswith("["):
        host, _, rest = authority[1:].partition("]")
        port_text = rest.removeprefix(":") if rest.startswith(":") else ("" if not rest else None)
    elif authority.count(":") == 1:
        host, _, port_text = authority.partition(":")
    else:
        host, port_text = authority, ""
    if port_text is None or not host or (port_text and not port_text.isdigit()) or len(port_text) > 5:
        raise ValueError(authority)
    return host.rstrip("."), int(port_text) if port_text else None


def is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@functools.lru_cache(maxsize=8)
def served_names(serve_host: str) -> frozenset[str]:
    """The names and addresses this server answers to besides localhost: the --host it was given,
    and when that is 0.0.0.0/:: (the whole network) this machine's LAN address and host name."""
    from app.__main__ import lan_address
    names: set[str] = set()
    if serve_host not in WILDCARD_HOSTS:
        names.add(serve_host.lower())
    if serve_host in ("0.0.0.0", "::"):
        hostname = socket.gethostname().lower()
        names |= {hostname, f"{hostname}.local", socket.getfqdn().lower()}
        try:
            names.add(lan_address())
        except OSError:
            pass
        try:
            names |= {info[4][0] for info in socket.getaddrinfo(hostname, None)}
        except OSError:
            pass
    return frozenset(n.strip("[]") for n in names if n)


def host_allowed(host: str) -> bool:
    settings = get_settings()
    if "*" in settings.allowed_hosts:
        return True
    return (host in LOCAL_NAMES or is_loopback(host) or host in served_names(settings.serve_host)
            or host in {h.lower().strip("[]") for h in settings.allowed_hosts})


def _header(scope, name: bytes) -> list[str]:
    return [v.decode("latin-1") for k, v in scope.get("headers", []) if k.lower() == name]


def _shown(text: str) -> str:
    return text[:100] + ("..." if len(text) > 100 else "")


class HostCheck:
    """400 unless the Host header names this server (localhost, a loopback address, the --host
    or LAN address it serves, or a name in DAGSCOPE_ALLOWED_HOSTS)."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        hosts = _header(scope, b"host")
        try:
            if len(hosts) != 1:
                raise ValueError("one Host header is required")
            host, _ = split_host(hosts[0])
        except ValueError:
            return await reply(send, 400, "the request needs exactly one valid Host header")
        if not host_allowed(host):
            return await reply(send, 400, f"this Dagscope server does not answer to the name "
                               f"'{_shown(host)}': open it by its own address (localhost, or the one it "
                               "printed), or add the name to DAGSCOPE_ALLOWED_HOSTS")
        return await self.app(scope, receive, send)


class SameOrigin:
    """On every state-changing request: 403 if the browser says it comes from another site
    (Origin other than this server's own, `Origin: null`, or Sec-Fetch-Site: cross-site), and 415
    for an API write that is not application/json."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] not in WRITE_METHODS:
            return await self.app(scope, receive, send)
        refusal = cross_site_refusal(scope)
        if refusal:
            return await reply(send, 403, refusal)
        if scope["method"] in BODY_METHODS and scope["path"].startswith("/api/") and not is_json(scope):
            return await reply(send, 415, "the API takes JSON: send the body with "
                               "'Content-Type: application/json'")
        return await self.app(scope, receive, send)


def cross_site_refusal(scope) -> str:
    """Why this write comes from another site, or '' if it does not."""
    if any(v.strip().lower() == "cross-site" for v in _header(scope, b"sec-fetch-site")):
        return "refused: the browser says this request comes from another web site (Sec-Fetch-Site: cross-site)"
    origins = _header(scope, b"origin")
    if not origins:
        return ""           # not a browser (curl, scripts) or a same-origin request of an old one
    hosts = _header(scope, b"host")
    if len(origins) != 1 or not same_origin(origins[0], hosts[0] if hosts else "", scope.get("scheme", "http")):
        return (f"refused: this request comes from another web site (Origin: {_shown(origins[0])}); "
                "only Dagscope's own page may change things here")
    return ""


def same_origin(origin: str, host_header: str, scheme: str) -> bool:
    """The Origin names exactly the scheme, host and port this request was sent to."""
    parts = urlsplit(origin.strip())
    if parts.scheme not in DEFAULT_PORTS or parts.path not in ("", "/") or parts.query or parts.username:
        return False            # `null` (sandboxed frames, file: pages) and anything odd
    try:
        origin_host, origin_port = split_host(parts.netloc)
        host, port = split_host(host_header)
    except ValueError:
        return False
    return (parts.scheme == scheme and origin_host == host
            and (origin_port or DEFAULT_PORTS[parts.scheme]) == (port or DEFAULT_PORTS[scheme]))


def is_json(scope) -> bool:
    types = _header(scope, b"content-type")
    if len(types) != 1:
        return False
    media_type = types[0].split(";", 1)[0].strip().lower()
    return media_type == "application/json"
