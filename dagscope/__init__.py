"""Dagscope in Jupyter: `%load_ext dagscope`, then a `%%dagscope` cell shows its code's graphs inline.

The cell magic posts the cell's code to a running Dagscope server as a share link (POST
/api/snippets: the code and the view to open) and shows that link's embed page (`/s/<id>?embed=1`,
docs/embed.md) in an <iframe> under the cell: the program runs in the server's sandbox, not in
the notebook's kernel, and the page draws its graphs as it does in a browser.

    %load_ext dagscope
    %dagscope_server http://127.0.0.1:8000        # or DAGSCOPE_URL; this is the default

    %%dagscope --view backward --height 560
    import torch
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward()

The notebook's origin must be allowed to frame the page: start the server with
DAGSCOPE_EMBED_ANCESTORS=http://localhost:8888 (Jupyter's address). With an access token
(DAGSCOPE_ACCESS_TOKEN, the same variable the server reads, or `%dagscope_server URL --token T`)
the post carries it as its Bearer, and the iframe's address carries a one-time ticket for that one
page (POST /api/embed-tickets; app/services/embed_tickets.py), never the token: an address is kept
in the browser's history, the notebook's saved output and servers' logs. The ticket opens the
page once within two minutes (so the frame loads at once, not lazily); a saved notebook reopened
later shows the server's "needs an access token" until the cell is run again.

Only the standard library and IPython are used: this package is a client of the server's HTTP API
and imports nothing of the app or the engine (`import dagscope` inside a run is the engine's own
facade, engine/compat: a run never sees this package)."""
from __future__ import annotations

import json
import os
import shlex
import urllib.error
import urllib.parse
import urllib.request

DEFAULT_SERVER = "http://127.0.0.1:8000"
VIEWS = ("forward", "backward", "step", "static", "passes", "kernels", "memory", "charts", "compare", "output")
TIMEOUT_S = 30


class DagscopeError(RuntimeError):
    """The server could not take the cell (it names why)."""


def share(code: str, server: str, view: str = "forward", token: str = "") -> str:
    """Post `code` as a share link opening on `view`; its id."""
    return _post(server, "/api/snippets", {"code": code, "state": {"tab": view}}, token)["id"]


def _post(server: str, path: str, body: dict, token: str) -> dict:
    request = urllib.request.Request(server.rstrip("/") + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json",
                                              **({"Authorization": f"Bearer {token}"} if token else {})})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as answer:
            return json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        detail = exc.read()[:500].decode("utf-8", "replace")
        raise DagscopeError(f"Dagscope at {server} refused the cell ({exc.code}): {detail}") from None
    except (urllib.error.URLError, OSError) as exc:
        raise DagscopeError(f"no Dagscope server answers at {server} ({exc}); start one with `make run` "
                            "or set it with %dagscope_server URL") from None


def ticket(server: str, snippet_id: str, token: str) -> str:
    """A one-time ticket opening the share link's page (the iframe's address carries it, not the token)."""
    return _post(server, "/api/embed-tickets", {"path": f"/s/{snippet_id}"}, token)["ticket"]


def embed_url(server: str, snippet_id: str, view: str = "forward", lang: str | None = None,
              ticket: str = "") -> str:
    query = {"embed": "1", "view": view, **({"lang": lang} if lang else {}), **({"ticket": ticket} if ticket else {})}
    return f"{server.rstrip('/')}/s/{urllib.parse.quote(snippet_id)}?{urllib.parse.urlencode(query)}"


def iframe_html(src: str, height: int, lazy: bool = True) -> str:
    """The frame; one whose address holds a ticket loads at once (the ticket is short-lived)."""
    from html import escape
    loading = ' loading="lazy"' if lazy else ""
    return (f'<iframe src="{escape(src)}" width="100%" height="{int(height)}"{loading} '
            f'style="border: 1px solid #e5e7eb; border-radius: 8px" title="Dagscope"></iframe>')


def _options(line: str) -> dict:
    """`--view V --height H --lang L --server URL --token T` of a magic's line."""
    words, out = shlex.split(line), {}
    for flag, value in zip(words[::2], words[1::2]):
        if not flag.startswith("--"):
            raise DagscopeError(f"unknown argument {flag!r}: use --view, --height, --lang, --server, --token")
        out[flag[2:]] = value
    if len(words) % 2:
        raise DagscopeError(f"{words[-1]!r} needs a value")
    if out.get("view", "forward") not in VIEWS:
        raise DagscopeError(f"--view is one of {', '.join(VIEWS)}")
    return out


def load_ipython_extension(ipython) -> None:
    from IPython.core.magic import Magics, cell_magic, line_magic, magics_class
    from IPython.display import HTML

    @magics_class
    class DagscopeMagics(Magics):
        server = os.environ.get("DAGSCOPE_URL", DEFAULT_SERVER)
        token = os.environ.get("DAGSCOPE_ACCESS_TOKEN", "")

        @line_magic
        def dagscope_server(self, line):
            """%dagscope_server URL [--token T]: the Dagscope server the cells go to."""
            words = shlex.split(line)
            if not words:
                return self.server
            type(self).server = words[0]
            if "--token" in words[1:-1]:
                type(self).token = words[words.index("--token") + 1]
            return None

        @cell_magic
        def dagscope(self, line, cell):
            """%%dagscope [--view V] [--height H] [--lang en|zh-CN]: the cell's graphs, inline."""
            options = _options(line)
            server, token = options.get("server", self.server), options.get("token", self.token)
            view = options.get("view", "forward")
            snippet_id = share(cell, server, view, token)
            once = ticket(server, snippet_id, token) if token else ""
            return HTML(iframe_html(embed_url(server, snippet_id, view, options.get("lang"), once),
                                    int(options.get("height", 520)), lazy=not once))

    ipython.register_magics(DagscopeMagics)
