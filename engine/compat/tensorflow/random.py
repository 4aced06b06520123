"""`tf.random`: seeded sampling. Eagerly a sample is a constant tensor; in a TF1 graph it is a source
op that Session.run samples afresh on every run (an IR input), as TensorFlow's random ops do."""
from __future__ import annotations

import numpy as np

from engine.compat.tensorflow import context, dtypes
from engine.compat.tensorflow.eager import EagerTensor
from engine.compat.tensorflow.graph import default_graph
from engine.compat.tensorflow.ops import _shape_tuple
from engine.errors import UnsupportedError

__all__ = ["set_seed", "normal", "uniform", "truncated_normal"]


def set_seed(seed) -> None:
    """`tf.random.set_seed`: later samples are reproducible (Dagscope's sequence, not TensorFlow's)."""
    st = context.state()
    st.seed = int(seed)
    st.rng = np.random.default_rng(int(seed))


def _source(tf_type: str, name: str | None, shape, dtype, sample):
    shape = _shape_tuple(shape)
    dtype = dtypes.as_dtype(dtype)

    def draw(rng):
        return np.asarray(sample(rng, shape), dtype=dtype.np)
    if context.state().tracing is not None:
        raise UnsupportedError(f"tf.random.* inside a tf.function is not supported by Dagscope: a traced "
                               "graph would freeze one sample; draw it outside and pass it in")
    if not context.building_graph():
        return EagerTensor(draw(context.state().rng))
    graph = default_graph()
    return graph.add(tf_type, name or tf_type, [], {"sample": draw}, None, dtype, dtypes.TensorShape(shape))


def normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    return _source("RandomStandardNormal", name, shape, dtype,
                   lambda rng, s: rng.standard_normal(s) * float(stddev) + float(mean))


def uniform(shape, minval=0, maxval=None, dtype=dtypes.float32, seed=None, name=None):
    dtype = dtypes.as_dtype(dtype)
    if dtype.is_integer:
        if maxval is None:
            raise ValueError("Must specify maxval for integer dtype")
        return _source("RandomUniformInt", name, shape, dtype, lambda rng, s: rng.integers(minval, maxval, size=s))
    hi = 1.0 if maxval is None else float(maxval)
    return _source("RandomUniform", name, shape, dtype, lambda rng, s: rng.uniform(float(minval), hi, size=s))


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    def sample(rng, s):
        out = rng.standard_normal(s)
        bad = np.abs(out) > 2.0                 # redraw beyond two standard deviations, as TF does
        while bad.any():
            out[bad] = rng.standard_normal(int(bad.sum()))
            bad = np.abs(out) > 2.0
        return out * float(stddev) + float(mean)
    return _source("TruncatedNormal", name, shape, dtype, sample)


from engine.compat.tensorflow._surface import unsupported_names  # noqa: E402

__getattr__ = unsupported_names("tf.random", globals())
