"""Child side: read one request on stdin, run it with the engine, write the run record to stdout."""
from __future__ import annotations

import json
import os
import sys


def main() -> None:
    request = json.loads(sys.stdin.buffer.read())
    # Keep the real stdout for the record; point fd 1 at /dev/null so that anything the user's
    # code (or a C extension) writes straight to the descriptor cannot corrupt the record.
    record_fd = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    from engine.runner import run_user_code

    record = run_user_code(request["code"], request.get("options") or {},
                           max_stdout_bytes=request["limits"]["max_stdout_bytes"])
    with os.fdopen(record_fd, "wb") as out:
        out.write(json.dumps(record, allow_nan=False, default=str).encode())


if __name__ == "__main__":
    main()
