"""Command line entry: `python -m app --host 127.0.0.1 --port 8000 [--token SECRET]`."""
from __future__ import annotations

import argparse
import os
import socket

import uvicorn

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")


def lan_address() -> str:
    """This machine's address on the LAN (the interface the default route would use)."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("192.0.2.1", 9))   # TEST-NET-1; UDP connect sends nothing, it only picks a route
        return probe.getsockname()[0]
    except OSError:
        return socket.gethostbyname(socket.gethostname())
    finally:
        probe.close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m app", description="Serve Dagscope.")
    parser.add_argument("--host", default="127.0.0.1",
                        help="127.0.0.1 (default) serves this machine only; 0.0.0.0 serves the whole network")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--token", default=os.environ.get("DAGSCOPE_ACCESS_TOKEN", ""),
                        help="require this access token (students open the link that carries it)")
    args = parser.parse_args(argv)
    if args.token:
        os.environ["DAGSCOPE_ACCESS_TOKEN"] = args.token
    os.environ["DAGSCOPE_HOST"] = args.host     # the Host check (app/origin.py) answers to this name
    from app.server import GuardedH11Protocol, raise_open_file_limit
    raise_open_file_limit()                     # each connection is a descriptor: allow as many as we may
    query = f"/?token={args.token}" if args.token else "/"
    if args.host in LOCAL_HOSTS:
        print(f"Dagscope: open http://localhost:{args.port}{query}")
    else:
        shown = lan_address() if args.host in ("0.0.0.0", "::") else args.host
        print(f"Dagscope is serving the network. Give students this address: http://{shown}:{args.port}{query}")
        print("WARNING: anyone who can reach this machine can run code in Dagscope's sandbox."
              + ("" if args.token else " Add --token SECRET so that only people with the link can.")
              + " Serve only on a network you trust (the classroom LAN), never on the internet.")
    from app.config import get_settings
    from app.logs import log_config
    settings = get_settings()
    config = uvicorn.Config("app.main:create_app", factory=True, host=args.host, port=args.port, log_level="info",
                            http=GuardedH11Protocol, timeout_graceful_shutdown=settings.drain_timeout_s,
                            log_config=log_config(settings.log_format))
    DrainingServer(config).run()


class DrainingServer(uvicorn.Server):
    """uvicorn's server, which on SIGTERM or SIGINT stops listening, closes idle connections and
    waits (up to DAGSCOPE_DRAIN_TIMEOUT) for the requests it took, then exits; here the run
    service is told first, so a request already read but not yet admitted is refused with 503
    rather than started, and /readyz says so (docs/deploy.md, "Shutdown")."""

    def handle_exit(self, sig, frame) -> None:
        from app.services import runs
        runs.drain()
        super().handle_exit(sig, frame)


if __name__ == "__main__":
    main()
