"""`import tensorflow as tf` inside a run: Dagscope's TensorFlow-compatible surface.

The modules import only downward, bottom to top:
1. state and plain data: _surface.py, errors.py, dtypes.py, nest.py (tf.nest), and context.py: per-run
   state, the default session, and why a TF1-session program runs in graph mode from its first line;
   config.py (tf.config and tf.device: one CPU, truthfully); trace_types.py (tf.types.experimental.TraceType);
2. the two kinds of tensor: eager.py (TF2 eager tensors: engine Tensors with TF's surface) and
   graph.py (TF1 graphs, their Operations and symbolic tensors, the default graph);
3. the ops: ops.py, array_ops.py — every op is one *lowering* onto the engine's op registry, run now
   (eager) or replayed onto the IR by a TF1 Session; then operators.py, which installs them as the
   tensors' Python operators (`a + b`, `a[0]`); index_ops.py (gather, scatter); nn.py, math.py, linalg.py,
   random.py; values that are not tensors: sparse.py (tf.SparseTensor), ragged.py (tf.RaggedTensor), and
   strings.py / io.py (string tensors' bytes, eagerly);
4. state and differentiation: variables.py (tf.Variable, eager and in a TF1 graph), tape.py
   (GradientTape on the engine's autograd), module.py (tf.Module), image.py (tf.image: an op TF gives no
   gradient);
5. graphs of a whole computation: function.py (tf.function: a graph per input signature, AutoGraph-
   style control flow by the engine's AST compiler; autograph.py: tf.autograph's switches),
   graph_control_flow.py (tf.cond/while_loop ops in a TF1 graph), control_flow.py (tf.cond / tf.while_loop in every mode), training.py
   (tf.gradients, initializers, the tf.train optimizers), session.py (Session.run on the IR's
   interpreter); init_ops.py (TF's own initializers, tf.random_normal_initializer ...); keras/: Keras 3 (also `import keras`: engine/compat/__init__.py aliases it); train.py (tf.train);
6. the namespace: _api.py (every top-level name), compat/ (tf.compat.v1 and v2, which fall back to
   _api), and this package, which is _api plus `compat`.
A name outside this surface fails with UnsupportedError naming it.
"""
from __future__ import annotations

from engine.compat.tensorflow import compat  # noqa: F401
from engine.compat.tensorflow._api import *  # noqa: F401,F403
from engine.compat.tensorflow._api import __version__  # noqa: F401
from engine.compat.tensorflow._surface import unsupported_names

__getattr__ = unsupported_names("tf", globals())
