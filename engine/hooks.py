"""What the eager core publishes, for the layers above it to listen to.

The core (tensor, autograd, custom Functions) tells these lists what happens; the recorder, the
static captures and the TensorFlow tape subscribe. So the core imports none of them, and a new
listener (another facade, a profiler) needs no change below it.

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

# observer(node, grad, in_grads): the backward walk ran `node` with the gradient `grad` arriving
# and `in_grads` leaving (the recorder shows these as backprop steps).
BACKWARD_STEP: list = []

# observer(root, retain_graph, call) -> a context manager entered around one backward walk from
# the Tensor `root` (`call` names what the user called: ".backward()"). The recorder takes its
# forward snapshot on entering and builds the backward graph on leaving.
BACKWARD_CALL: list = []


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
