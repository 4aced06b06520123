"""Where the user's program is: the file name its code runs under, the line of it running now,
and the code of a line. Captures note these on graph nodes and the recorder on autograd nodes, so
this sits below both (with engine/hooks.py)."""
from __future__ import annotations

import io
import linecache
import sys
import tokenize

USER_FILENAME = "<dagscope>"       # what engine/runner.py compiles the pasted program as


def user_line() -> int | None:
    """The line of the user's code running now (the innermost frame of the pasted program)."""
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename == USER_FILENAME:
            return frame.f_lineno
        frame = frame.f_back
    return None


def condition_text(line: int | None) -> str | None:
    """The code of a user's line, without `if`/`elif`/`while` and the colon, comments dropped:
    `if x.sum() > 0:  # note` -> `x.sum() > 0`."""
    if line is None:
        return None
    text = linecache.getline(USER_FILENAME, line).strip()
    try:
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type == tokenize.COMMENT]
        if tokens:
            text = text[:tokens[0].start[1]].rstrip()
    except (tokenize.TokenError, SyntaxError):
        pass
    for keyword in ("if ", "elif ", "while ", "assert "):
        if text.startswith(keyword):
            text = text[len(keyword):].rstrip(":").rstrip()
            break
    return text or None
