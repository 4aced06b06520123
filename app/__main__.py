"""Command line entry: `python -m app --host 127.0.0.1 --port 8000`."""
from __future__ import annotations

import argparse

import uvicorn


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m app", description="Serve Dagscope.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args(argv)
    print(f"Dagscope: open http://{'localhost' if args.host in ('127.0.0.1', 'localhost') else args.host}:{args.port}")
    uvicorn.run("app.main:create_app", factory=True, host=args.host, port=args.port, log_level="info")


if __name__ == "__main__":
    main()
