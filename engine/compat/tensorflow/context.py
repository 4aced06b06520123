"""Per-run TensorFlow state: eager or graph mode, the default graph, active tapes, the random seed.

The facade module outlives a run (it stays imported in the worker), so its state lives with the
run's Recorder: a new run starts in a fresh state, exactly as a fresh `python script.py` would.

Which mode a program starts in: TF2 programs start eager. A program written against the TF1
session API (`tf.Session`, `tf.placeholder`, ... — names TF2 removed from its top level) is a
TF 1.x program, so it runs as TF 1.x ran it: in graph mode from its first line. That is the lesson
of the seed's TF1 snippet — `tf.add` only adds a node, nothing is computed until `sess.run` — so
`print(c)` there shows a symbolic `Tensor("Add:0", ...)`, as it did in TF 1.x. (Accepting eager
tensors as Session fetches instead would print 5 too, but would teach that the value existed
before the session ran, which is the opposite of what the snippet is about.)
"""
from __future__ import annotations

import ast
import linecache
import types
import weakref

import numpy as np

from engine import record
from engine.hooks import Message

# Names that exist only in the TF1 API (removed from TF2's top level): using one marks a TF1 program.
TF1_SESSION_API = frozenset({"Session", "InteractiveSession", "placeholder", "global_variables_initializer",
                             "disable_eager_execution", "disable_v2_behavior"})
DEFAULT_SEED = 0      # unseeded runs are still reproducible, as Dagscope's torch side is


class RunState:
    def __init__(self, eager: bool = True):
        self.eager = eager
        self.graph_stack: list = []          # `with g.as_default():` graphs, innermost last
        self.root_graph = None               # the default graph outside them (graph.default_graph makes it)
        self.tapes: list = []                # GradientTapes currently recording, innermost last
        self.sessions: list = []             # default sessions (`with sess:` / InteractiveSession)
        self.seed: int | None = None
        self.rng = np.random.default_rng(DEFAULT_SEED)
        self.recorded_session_graphs = 0
        self.tracing = None                  # the tf.function trace in progress (function._Tracing)
        self.keras_names: dict = {}          # layer name -> how many layers took it ("dense", "dense_1")
        self.functions_eagerly = False       # tf.config.run_functions_eagerly: tf.function calls the Python
        self.threads = {"intra_op": 0, "inter_op": 0}    # tf.config.threading's settings (0: the default)
        self.keras_seed_generator = None     # keras.random's global SeedGenerator (keras/random.py)
        self.global_generator = None         # tf.random.get_global_generator()'s (random.py)
        self.logical_cpus = None             # tf.config.set_logical_device_configuration's list (config.py)
        self.devices_initialized = False     # the first op or device listing fixes the logical devices
        self.summary = types.SimpleNamespace(writers=[], step=None)   # tf.summary's default writers, step


_outside_runs = RunState()
_by_recorder: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
# The last run's recorder and state, both weakly held: every eager op asks for the state two or three
# times, and the WeakKeyDictionary's lookup was most of that cost in long training loops.
_last: list = [lambda: None, lambda: None]


def state() -> RunState:
    """The state of the current run (or of plain library use when no run is active)."""
    rec = record.current()
    if rec is None:
        return _outside_runs
    if _last[0]() is rec:
        st = _last[1]()
        if st is not None:
            return st
    st = _by_recorder.get(rec)
    if st is None:
        st = _by_recorder[rec] = _fresh_run_state(rec)
    _last[:] = [weakref.ref(rec), weakref.ref(st)]
    return st


def _fresh_run_state(rec) -> RunState:
    uses = tf1_names_used(linecache.getlines(record.USER_FILENAME))
    st = RunState(eager=not uses)
    if uses and not uses & {"disable_eager_execution", "disable_v2_behavior"}:
        names = ", ".join(sorted("tf." + n for n in uses))
        rec.warn(Message("warning.tf1_mode", f"This program uses {names} from TensorFlow 1.x, so "
                         "Dagscope runs it in TF1 graph mode: tf.constant, tf.add ... only add nodes to a graph, "
                         "and values are computed by Session.run. (In TensorFlow 2 you would call "
                         "tf.compat.v1.disable_eager_execution() first.)", names=names))
    return st


def tf1_names_used(lines: list[str]) -> set[str]:
    """The TF1-only session API names the program's source mentions (as attributes: `tf.Session`)."""
    try:
        tree = ast.parse("".join(lines))
    except SyntaxError:
        return set()
    return {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr in TF1_SESSION_API}


def building_graph(st: RunState | None = None) -> bool:
    """Do TF ops add nodes to a TF1 graph now (graph mode, or inside `with g.as_default()`)?
    Inside a tf.function trace they run on the compiler's stand-in tensors instead.
    `st`: the run's state when the caller has it already."""
    st = st or state()
    return (not st.eager or bool(st.graph_stack)) and st.tracing is None


def executing_eagerly() -> bool:
    """`tf.executing_eagerly()`: False in TF1 graph mode and while a tf.function is traced."""
    st = state()
    return st.eager and not st.graph_stack and st.tracing is None


def get_default_session():
    """The innermost `with sess:` / `sess.as_default()` / InteractiveSession (what `t.eval()` runs in)."""
    stack = state().sessions
    if not stack:
        raise ValueError("Cannot evaluate tensor using `eval()`: No default session is registered. Use "
                         "`with sess.as_default()` or pass an explicit session to `eval(session=sess)`")
    return stack[-1]


# ---- switching modes (tf.compat.v1) ------------------------------------------------------------------

def disable_eager_execution() -> None:
    """From here on, tf.constant, tf.add ... add nodes to the default graph; Session.run computes them."""
    state().eager = False


def enable_eager_execution(config=None, device_policy=None, execution_mode=None) -> None:
    state().eager = True
