"""Runs pasted code in this process and returns its run record (called inside the sandbox child)."""
from __future__ import annotations

import contextlib
import io
import linecache
import sys
import time
import traceback
import types
import warnings

from engine import compat, hooks
from engine.errors import UnsupportedError
from engine.record import Recorder, use_recorder
from engine.record.messages import attach as attach_messages
from engine.record.values import ValueStore
from engine.tensor import Tensor
from engine.user_code import USER_FILENAME, user_line


# The order of a run's writes is kept as runs of characters; past this many switches between stdout
# and stderr the rest of each stream follows in one piece (a program alternating a million times
# would otherwise make this list the largest part of the record).
MAX_ORDER_ENTRIES = 2_000


class OutputOrder:
    """In what order a program wrote to stdout and stderr: `[["stdout", 12], ["stderr", 140], ...]`,
    consecutive writes to one stream merged, counts in characters (code points) of the kept text."""

    def __init__(self, limit: int = MAX_ORDER_ENTRIES):
        self.entries: list[list] = []
        self.limit = limit
        self.full = False

    def note(self, stream: str, chars: int) -> None:
        if chars <= 0 or self.full:
            return                     # once one write went unlisted, no later write may be listed
        if self.entries and self.entries[-1][0] == stream:
            self.entries[-1][1] += chars
        elif len(self.entries) < self.limit:
            self.entries.append([stream, chars])
        else:
            self.full = True


class BoundedStream(io.TextIOBase):
    """A program's stdout or stderr: keeps at most `limit` characters, notes that the rest was cut,
    and tells `order` what it kept."""

    def __init__(self, name: str, limit: int, order: OutputOrder | None = None):
        self.name = name
        self.limit = limit
        self.order = order if order is not None else OutputOrder()
        self.parts: list[str] = []
        self.size = 0
        self.truncated = False

    def writable(self) -> bool:
        return True

    @property
    def full(self) -> bool:
        return self.size >= self.limit

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        room = self.limit - self.size
        if room <= 0:
            self.truncated = self.truncated or bool(text)
            return len(text)
        if len(text) > room:
            self.truncated = True
        kept = text[:room]
        self.parts.append(kept)
        self.size += len(kept)
        self.order.note(self.name, len(kept))
        return len(text)

    def getvalue(self) -> str:
        text = "".join(self.parts)
        if self.truncated:
            text += f"\n[output truncated: more than {self.limit} characters]\n"
        return text


# What `python program.py` starts with (a release build, no -W option): every other warning is
# shown once per location, each DeprecationWarning only when it points at __main__.
PYTHON_DEFAULT_FILTERS = [("default", DeprecationWarning, r"__main__\Z"), ("ignore", DeprecationWarning, ""),
                          ("ignore", PendingDeprecationWarning, ""), ("ignore", ImportWarning, ""),
                          ("ignore", ResourceWarning, "")]


class WarningPrinter:
    """warnings.showwarning for a run: Python's format on the run's stderr, at the user's line.

    A warning raised inside the engine (nn.Softmax() without dim warns from Module.__call__) is
    shown at the innermost line of the pasted program, as tracebacks show only the user's frames:
    a student cannot open engine files. Once stderr is full, further warnings are ignored, so a
    flood of distinct warnings does not grow Python's once-per-location registry without bound."""

    def __init__(self, stderr: BoundedStream):
        self.stderr = stderr

    def __call__(self, message, category, filename, lineno, file=None, line=None) -> None:
        target = file if file is not None else sys.stderr
        if target is None:
            return                     # as Python's: a program that set sys.stderr = None sees nothing
        if target is self.stderr and self.stderr.full:
            self.stderr.truncated = True
            warnings.simplefilter("ignore")
            return
        if filename != USER_FILENAME:
            user_lineno = user_line()
            if user_lineno is not None:
                filename, lineno, line = USER_FILENAME, user_lineno, None
        try:
            target.write(warnings.formatwarning(message, category, filename, lineno, line))
        except OSError:
            pass                       # as Python's own showwarning: a closed stream loses it


@contextlib.contextmanager
def python_warnings(stderr: BoundedStream):
    """The run's warnings as a fresh `python` process would show them, whatever filters and
    hooks the host process set (pytest records warnings; the zygote may run with -W)."""
    with warnings.catch_warnings():
        warnings.resetwarnings()
        for action, category, module in PYTHON_DEFAULT_FILTERS:
            warnings.filterwarnings(action, category=category, module=module, append=True)
        warnings.showwarning = WarningPrinter(stderr)
        yield


class NoInput(io.TextIOBase):
    """Standard input of a run: there is no keyboard behind a pasted program, so input() says so
    instead of Python's puzzling "EOF when reading a line"."""

    def readable(self) -> bool:
        return True

    def readline(self, size: int = -1) -> str:
        raise EOFError("input() cannot be answered: Dagscope runs a program without a keyboard; "
                       "write the value into the code instead")

    read = readline


def register_source(code: str, filename: str = USER_FILENAME) -> None:
    """Give the pasted code a stable pseudo-file so inspect, tracebacks and warnings find its lines."""
    linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)


def _syntax_error(exc: SyntaxError) -> dict:
    return {"kind": "syntax_error", "type": type(exc).__name__, "message": exc.msg,
            "line": exc.lineno, "column": exc.offset,
            "traceback": "".join(traceback.format_exception_only(type(exc), exc))}


# An error's message and traceback are for reading: past these sizes they are cut (a program can
# raise ValueError('x' * 10**7), which would otherwise push the whole run record past its limit).
MAX_MESSAGE_CHARS = 4_000
MAX_TRACEBACK_CHARS = 20_000


def _bounded(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + f"... [cut: {len(text)} characters in all]"


def _exception_text(exc: BaseException) -> str:
    """str(exc), or what Python's own traceback prints when the exception's __str__ itself fails."""
    try:
        return str(exc)
    except Exception:  # noqa: BLE001 - the user's __str__ may raise anything
        return "<exception str() failed>"


def _missing_tensor_method(exc: BaseException) -> str | None:
    """The unsupported-name message for `t.cumsum(0)` on a Tensor that lacks it, else None.
    Judged here, after the fact, rather than by a Tensor.__getattr__: defining one makes every
    attribute read of every tensor slower (CPython then cannot specialize them), ~13% per op."""
    name, obj = getattr(exc, "name", None), getattr(exc, "obj", None)
    if (type(exc) is not AttributeError or not isinstance(obj, Tensor) or not isinstance(name, str)
            or name.startswith("_") or type(obj).__module__.startswith("engine.compat.tensorflow")):
        return None                  # (a TensorFlow tensor just lacks PyTorch's names, as in TF)
    public = sorted(n for n in dir(Tensor) if not n.startswith("_"))
    return f"Tensor.{name} is not supported by Dagscope. Supported Tensor attributes: {', '.join(public)}."


def _runtime_error(exc: BaseException) -> dict:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == USER_FILENAME]
    line = frames[-1].lineno if frames else None
    unsupported_method = _missing_tensor_method(exc)
    message = _bounded(unsupported_method or _exception_text(exc), MAX_MESSAGE_CHARS)
    text = "Traceback (most recent call last):\n" + "".join(traceback.format_list(frames))
    text += f"{type(exc).__name__}: {message}\n" if message else f"{type(exc).__name__}\n"
    kind = "runtime_error"
    if isinstance(exc, UnsupportedError) or unsupported_method:
        kind = "unsupported"
    elif isinstance(exc, MemoryError):
        kind = "memory_limit"
    return {"kind": kind, "type": type(exc).__name__, "message": message, "line": line,
            "traceback": _bounded(text, MAX_TRACEBACK_CHARS)}


def _exit_error(exc: SystemExit) -> dict | None:
    """sys.exit() and sys.exit(0) end a program normally; any other status is a failure, as the
    shell would report it (a string status is printed, as Python prints it to stderr)."""
    if exc.code is None or exc.code == 0:
        return None
    error = _runtime_error(exc)
    error["message"] = (_bounded(str(exc.code), MAX_MESSAGE_CHARS) if not isinstance(exc.code, int)
                        else f"the program called sys.exit({exc.code})")
    if isinstance(exc.code, int):
        error["wording"] = {"key": "error_message.exit_status", "params": {"status": exc.code}}
    return error


def _output_limit_error(streams: list[BoundedStream]) -> dict:
    cut = [stream for stream in streams if stream.truncated]
    if [stream.name for stream in cut] == ["stdout"]:
        message = f"the program printed more than {cut[0].limit} characters; the rest was cut"
        wording = {"key": "error_message.printed_too_much", "params": {"n": cut[0].limit}}
    else:
        too_much = " and ".join(f"more than {stream.limit} characters to {stream.name}" for stream in cut)
        message = (f"the program wrote {too_much}; the rest was cut (stderr holds Python's warnings "
                   "and what the program wrote to sys.stderr)")
        limits = {stream.name: stream.limit for stream in cut}
        wording = ({"key": "error_message.wrote_too_much_stderr", "params": {"n": limits["stderr"]}}
                   if len(cut) == 1 else
                   {"key": "error_message.wrote_too_much_both", "params": {"out": limits["stdout"], "err": limits["stderr"]}})
    # wording: the page's catalog key for the message (app/sandbox/outcome.py error_record)
    return {"kind": "output_limit", "type": None, "line": None, "traceback": "", "message": message,
            "wording": wording}


# True while the pasted program itself runs (not the record's making after it): the sandbox's
# Stop interrupts the program only then (app/sandbox/child.py), so the record is always written whole
user_code_running = False


def run_user_code(code: str, options: dict | None = None, *, max_stdout_bytes: int = 200_000,
                  max_stderr_bytes: int | None = None, values: ValueStore | None = None) -> dict:
    """Execute `code` as a script and return the run record of DESIGN.md (without limits/elapsed).
    stderr is bounded like stdout (by default to the same number of characters, counted apart).
    `values`: where the dynamic graphs' large tensors keep their values (the record then holds
    their ids); None writes every tensor whole into the record."""
    started = time.perf_counter()
    options = options or {}
    order = OutputOrder()
    stdout = BoundedStream("stdout", max_stdout_bytes, order)
    stderr = BoundedStream("stderr", max_stdout_bytes if max_stderr_bytes is None else max_stderr_bytes, order)
    recorder = Recorder(options, values)
    error = None
    try:
        compiled = compile(code, USER_FILENAME, "exec")
    except SyntaxError as exc:
        error = _syntax_error(exc)
    else:
        register_source(code)
    # the program's globals are the __dict__ of the module sys.modules["__main__"] names while it runs, as
    # for `python program.py`: pickle (torch.save of a model whose class the program defines) finds its
    # classes and functions there, and doctest.testmod() its docstrings
    main = types.ModuleType("__main__")
    namespace: dict = main.__dict__
    if error is None:
        namespace.update({"__name__": "__main__", "__file__": USER_FILENAME, "__builtins__": __builtins__})
        # sys.__stdout__/__stderr__ too: in a terminal, print(file=sys.__stderr__) shows as well
        saved = sys.stdin, sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__, sys.argv
        saved_main = sys.modules.get("__main__")
        sys.modules["__main__"] = main
        sys.stdin, sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__ = NoInput(), stdout, stderr, stdout, stderr
        # as `python program.py` with no arguments: argparse's parse_args() then reads none (the
        # process's own argv is the sandbox's command line, `zygote.py 7`)
        sys.argv = [USER_FILENAME]
        global user_code_running
        try:
            with python_warnings(stderr), compat.installed(), use_recorder(recorder):
                user_code_running = True
                try:
                    exec(compiled, namespace)
                finally:
                    user_code_running = False
        except SystemExit as exc:
            error = _exit_error(exc)
        except BaseException as exc:  # noqa: BLE001 - every user failure becomes a record
            error = _runtime_error(exc)
        finally:
            sys.stdin, sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__, sys.argv = saved
            if saved_main is None:
                sys.modules.pop("__main__", None)
            else:
                sys.modules["__main__"] = saved_main
    if error is None and (stdout.truncated or stderr.truncated):
        error = _output_limit_error([stdout, stderr])
    try:
        graphs = recorder.finish(namespace)
    except Exception as exc:  # noqa: BLE001 - a recording bug must not hide the user's output
        graphs = recorder.graphs
        recorder.warn(hooks.Message("warning.not_every_graph",
                                    f"Dagscope could not record every graph of this run ({type(exc).__name__}: {exc}).",
                                    quote=f"{type(exc).__name__}: {exc}"[:900]))
    record = {"ok": error is None, "stdout": stdout.getvalue(), "stderr": stderr.getvalue(),
              "output_order": order.entries, "error": error,
              "graphs": graphs, "warnings": recorder.warnings,
              "elapsed_ms": round((time.perf_counter() - started) * 1000, 1)}
    summaries = recorder.summaries.to_record()
    if summaries is not None:
        record["summaries"] = summaries
    return attach_messages(record)
