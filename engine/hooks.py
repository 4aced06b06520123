"""What the eager core and the captures publish, for the layers above them to listen to.

The core (tensor, autograd, custom Functions) tells these lists what happens; the recorder, the
static captures and the TensorFlow tape subscribe. The captures in turn publish the graphs they
make (GRAPH_CAPTURED, WARNING), and the recorder subscribes. So neither imports the layers that
listen, and a new listener (another facade, a profiler) needs no change below it.

Each hook is a plain list of observers. The core reads it as `if HOOK: for observer in HOOK: ...`,
so an empty hook costs one truthiness test on the hot path; engine/native/fastops.c holds
OP_APPLIED itself and tests it the same way in C. Subscribe with `subscribed(HOOK, observer)`
(or append and remove in pairs); observers run in subscription order.
"""
from __future__ import annotations

import contextlib

# observer(op, inputs, attrs, out): an eager op ran (op: the OpDef; inputs: its Tensor inputs;
# out: the Tensor it made). Tracing captures and the TensorFlow tape record ops from here.
OP_APPLIED: list = []

# observer(tensor, kind): Python read a tensor's value (kind: "bool", "item", "tolist", "numpy"),
# called before the read, so a capture can explain why it refuses a data-dependent branch.
VALUE_READ: list = []

# observer(node): a new autograd node (an op's Node or a custom Function's node). The recorder
# notes on it the user's source line and the nn.Module running (`node.line`, `node.module`).
# engine/native's C operators do not call these observers: while the recorder runs they note the
# same two fields in C (tensor.native_notes_where), so the recorder is the one subscriber they serve.
NODE_MADE: list = []

# observer(module, output): an nn.Module called from outside every other module returned `output`.
# The recorder keeps the last such output that has a graph, so a model applied only inside an
# expression (`print(net(X))`, `net(X).shape`) is drawn though no variable holds what it made.
MODULE_CALLED: list = []

# observer(node, grad, in_grads): the backward walk ran `node` with the gradient `grad` arriving
# and `in_grads` leaving (the recorder shows these as backprop steps). A leaf's .grad may be one of
# these arrays (AccumulateGrad keeps an unshared gradient, as PyTorch does, and a later backward adds
# into it in place): an observer reading them once the program has gone on copies them first.
BACKWARD_STEP: list = []

# observer(root, retain_graph, call) -> a context manager entered around one backward walk from
# the Tensor `root` (`call` names what the user called: ".backward()"). The recorder takes its
# forward snapshot on entering and builds the backward graph on leaving.
BACKWARD_CALL: list = []

# observer(captured) -> a call site or None: a capture (trace, script, function, compile) made a
# static graph (`captured`: engine.capture.trail.Captured, the graph and what to show with it).
# The recorder adds it to the run record and returns what records the graph's later calls
# (engine.record.calls.CallSite: `.active()`, `.watch()`, `.add(...)`); the first site returned is
# the one. Published by engine.capture.trail.graph_captured.
GRAPH_CAPTURED: list = []

# observer(message): a capture or front-end has something for the run record's warnings (a graph
# break, a frozen branch, a retrace). Published by engine.capture.trail.warn.
WARNING: list = []


@contextlib.contextmanager
def subscribed(hook: list, observer):
    """`observer` listens to `hook` for the duration of the with-block."""
    hook.append(observer)
    try:
        yield observer
    finally:
        hook.remove(observer)


@contextlib.contextmanager
def around_backward(root, retain_graph: bool, call: str = ".backward()"):
    """Enter every BACKWARD_CALL observer's context around one backward walk (the caller tests
    `if BACKWARD_CALL` first, to skip this when nobody listens)."""
    with contextlib.ExitStack() as stack:
        for observer in list(BACKWARD_CALL):
            stack.enter_context(observer(root, retain_graph, call))
        yield


class Message(str):
    """A text for the run record: the English as the record has always said it (a Message is a str,
    so every reader of the record's strings still reads it), and the page's catalog key with the
    parameters it words the text from in the page's language (static/i18n/*.json; the stale-call
    data and the pass notes do the same). A parameter is a string, an int, a list of strings or
    another Message; the parameter `quote` is another program's own words (PyTorch's TracerWarning,
    TensorFlow's retrace reason), shown as code in every language. engine/record/messages.py puts
    the key and parameters in the record beside the English."""

    def __new__(cls, key: str, text: str, **params):
        self = super().__new__(cls, text)
        self.key, self.params = key, params
        return self

    def json(self) -> dict:
        return {"key": self.key, "params": {k: v.json() if isinstance(v, Message) else v
                                            for k, v in self.params.items()}}

    def __reduce__(self):          # pickled and copied as what it is (str would drop the key)
        return (_message, (self.key, str(self), self.params))


def _message(key: str, text: str, params: dict) -> Message:
    return Message(key, text, **params)
