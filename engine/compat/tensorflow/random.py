"""`tf.random`: seeded sampling. Eagerly a sample is a constant tensor; in a TF1 graph it is a source
op that Session.run samples afresh on every run (an IR input), as TensorFlow's random ops do.

`tf.random.Generator` is TensorFlow's own stateful Philox stream, bit for bit: its state is a
tf.Variable [counter low, counter high, key] (`from_seed(1)` is [1, 0, 0]); a draw of n values reads
Philox blocks from that counter (keras/philox.py, unscrambled) and moves it on by 256 * n, as
TensorFlow's kernel does; `split` makes generators keyed by uniform_full_int(int64) draws."""
from __future__ import annotations

import numpy as np

from engine.compat.tensorflow import context, dtypes, index_ops
from engine.compat.tensorflow.eager import EagerTensor
from engine.compat.tensorflow.graph import GraphTensor, default_graph
from engine.compat.tensorflow.keras import philox
from engine.compat.tensorflow.ops import _shape_tuple
from engine.compat.tensorflow.script_ops import call_in_graph
from engine.compat.tensorflow.variables import Variable
from engine.errors import UnsupportedError

__all__ = ["set_seed", "normal", "uniform", "truncated_normal", "stateless_normal", "stateless_uniform",
           "stateless_truncated_normal", "shuffle", "Generator", "get_global_generator",
           "set_global_generator", "Algorithm"]


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


def shuffle(value, seed=None, name=None):
    """`tf.random.shuffle` along the first axis. With an op seed it is TensorFlow's RandomShuffle, bit
    for bit (op seeds: the global seed, or TF's default graph seed 87654321 without one, and `seed`);
    without one, an order from the run's stream (TensorFlow's would come from its own op-seed counter)."""
    t = index_ops.convert_to_tensor(value)
    if context.state().tracing is not None or context.building_graph():
        raise UnsupportedError("tf.random.shuffle inside a tf.function or a TF1 graph is not supported by Dagscope "
                               "(eagerly it is)")
    n = t.shape[0] if t.shape.rank else 0
    if seed is None:
        order = context.state().rng.permutation(n)
    else:
        g = context.state().seed
        seeds = ((87654321 if g is None else g) % _MAXINT32, int(seed) % _MAXINT32)
        order = philox.shuffle_order(n, *(seeds if seeds != (0, 0) else (0, _MAXINT32)))
    return index_ops.gather(t, order.astype(np.int64)) if n > 1 else t


_MAXINT32 = 2 ** 31 - 1


# ---- stateless: TensorFlow's numbers for a seed pair (keras/philox.py) -------------------------------

def _stateless(what: str, shape, seed, dtype, sample):
    if isinstance(seed, GraphTensor) or (context.state().tracing is not None
                                          and context.state().tracing.is_symbolic(seed)):
        raise UnsupportedError(f"tf.random.{what} with a seed computed in the graph is not supported by Dagscope "
                               "(a seed known when the graph is built is)")
    pair = [int(v) for v in np.asarray(getattr(seed, "array", seed)).reshape(-1)]
    if len(pair) != 2:
        raise ValueError(f"seed must have shape [2], not [{len(pair)}]")
    dtype = dtypes.as_dtype(dtype)
    if dtype != dtypes.float32:
        raise UnsupportedError(f"tf.random.{what} of {dtype.name} is not supported by Dagscope (float32 is)")
    if context.building_graph():
        raise UnsupportedError(f"tf.random.{what} in a TF1 graph is not supported by Dagscope (eagerly and in a "
                               "tf.function it is)")
    return EagerTensor(np.asarray(sample(_shape_tuple(shape), pair), np.float32))


def stateless_normal(shape, seed, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None, alg="auto_select"):
    return _stateless("stateless_normal", shape, seed, dtype, lambda s, p: philox.normal(s, p, mean, stddev))


def stateless_uniform(shape, seed, minval=0, maxval=None, dtype=dtypes.float32, name=None, alg="auto_select"):
    hi = 1.0 if maxval is None else maxval
    return _stateless("stateless_uniform", shape, seed, dtype, lambda s, p: philox.uniform(s, p, minval, hi))


def stateless_truncated_normal(shape, seed, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None,
                               alg="auto_select"):
    return _stateless("stateless_truncated_normal", shape, seed, dtype,
                      lambda s, p: philox.truncated_normal(s, p, mean, stddev))


# ---- tf.random.Generator ----------------------------------------------------------------------------

class Algorithm:
    """`tf.random.Algorithm`: PHILOX (1) is the one Dagscope draws with, TensorFlow's default on CPU."""
    PHILOX = 1
    THREEFRY = 2
    AUTO_SELECT = 3


def _algorithm(alg) -> int:
    if alg is None or alg in (1, 3, "philox", "auto_select", Algorithm.PHILOX):
        return Algorithm.PHILOX
    if alg in (2, "threefry"):
        raise UnsupportedError("tf.random.Generator with alg='threefry' is not supported by Dagscope (philox is, "
                               "TensorFlow's default on CPU)")
    raise ValueError(f"Argument `alg` got unsupported value {alg}. Supported values are "
                     "{'philox', 'threefry', 'auto_select'}")


def _state_of_seed(seed) -> list:
    """TensorFlow's create_rng_state: an int cut into three 64-bit words, lowest first."""
    if isinstance(seed, (list, tuple, np.ndarray)):
        words = [int(v) for v in np.asarray(seed).reshape(-1)][:3]
        return words + [0] * (3 - len(words))
    seed, words = int(seed), []
    for _ in range(3):
        words.append(seed & 0xFFFFFFFFFFFFFFFF)
        seed >>= 64
    return words


def _int64(words: list) -> np.ndarray:
    return np.array([w & 0xFFFFFFFFFFFFFFFF for w in words], np.uint64).view(np.int64)


# TensorFlow's op for each draw (the GraphDef's name of the node that draws inside a tf.function)
_TF_OPS = {"normal": "StatelessRandomNormalV2", "truncated_normal": "StatelessTruncatedNormalV2",
           "uniform": "StatelessRandomUniformV2", "uniform_full_int": "StatelessRandomUniformFullIntV2"}


class Generator:
    """`tf.random.Generator` (Philox): from_seed, from_state, from_non_deterministic_state, split,
    normal / uniform / truncated_normal / uniform_full_int / make_seeds, reset, skip."""

    def __init__(self, copy_from=None, state=None, alg=None):
        if copy_from is not None:
            state, alg = copy_from.state.numpy(), copy_from.algorithm
        self._alg = _algorithm(alg)
        self._state_var = Variable(_int64(_state_of_seed(state if state is not None else 0)), trainable=False,
                                   name="Variable")

    @classmethod
    def from_seed(cls, seed, alg=None):
        return cls(state=_state_of_seed(seed), alg=alg)

    @classmethod
    def from_state(cls, state, alg):
        return cls(state=state, alg=alg)

    @classmethod
    def from_non_deterministic_state(cls, alg=None):
        return cls(state=[int(w) for w in np.random.SeedSequence().generate_state(3, np.uint64)], alg=alg)

    @classmethod
    def from_key_counter(cls, key, counter, alg):
        return cls(state=[int(c) for c in np.asarray(counter).reshape(-1)[:2]] + [int(key)], alg=alg)

    @property
    def state(self):
        return self._state_var

    @property
    def algorithm(self) -> int:
        return self._alg

    @property
    def key(self):
        return EagerTensor(np.asarray(self._state_var.numpy()[2:3]).reshape(()).astype(np.uint64))

    def reset(self, state) -> None:
        self._state_var.assign(_int64(_state_of_seed(np.asarray(getattr(state, "numpy", lambda: state)()))))

    def reset_from_seed(self, seed) -> None:
        self._state_var.assign(_int64(_state_of_seed(seed)))

    def reset_from_key_counter(self, key, counter) -> None:
        self._state_var.assign(_int64([int(c) for c in np.asarray(counter).reshape(-1)[:2]] + [int(key)]))

    def skip(self, delta) -> None:
        self._advance(int(delta))

    def _draw(self, shape, what: str, sample, dtype):
        """sample(state) for `shape`, then the counter moves on by 256 per value (TensorFlow's kernel). Inside a
        tf.function it is a node that draws each time the graph runs it (script_ops.call_in_graph), so every
        call moves the generator's state on, as TensorFlow's stateful random ops do."""
        if context.building_graph():
            raise UnsupportedError(f"tf.random.Generator.{what} inside a TF1 graph is not supported by Dagscope "
                                   "(the generator's state would have to change in the graph); draw eagerly and "
                                   "feed the values")
        shape = _shape_tuple(shape)
        if context.state().tracing is not None:
            return call_in_graph(lambda: self._draw(shape, what, sample, dtype), shape, dtype, _TF_OPS[what])
        words = [int(w) for w in self._state_var.numpy().view(np.uint64)]
        out = sample(shape, philox.State(words))
        self._advance(int(np.prod(shape, dtype=np.int64)) * 256)
        return EagerTensor(np.asarray(out))

    def _advance(self, blocks: int) -> None:
        low, high, key = (int(w) for w in self._state_var.numpy().view(np.uint64))
        counter = ((high << 64) | low) + blocks
        self._state_var.assign(_int64([counter & 0xFFFFFFFFFFFFFFFF, (counter >> 64) & 0xFFFFFFFFFFFFFFFF, key]))

    def normal(self, shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None):
        dtype = dtypes.as_dtype(dtype)
        if dtype == dtypes.float64:
            return self._draw(shape, "normal", lambda s, st: philox.normal64(s, st, mean, stddev), dtype)
        return self._draw(shape, "normal", lambda s, st: philox.normal(s, st, mean, stddev).astype(dtype.np), dtype)

    def truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None):
        dtype = dtypes.as_dtype(dtype)
        if dtype != dtypes.float32:
            raise UnsupportedError("tf.random.Generator.truncated_normal of float64 is not supported by Dagscope "
                                   "(float32 is)")
        return self._draw(shape, "truncated_normal", lambda s, st: philox.truncated_normal(s, st, mean, stddev), dtype)

    def uniform(self, shape, minval=0, maxval=None, dtype=dtypes.float32, name=None):
        dtype = dtypes.as_dtype(dtype)
        if dtype.is_integer:
            if maxval is None:
                raise ValueError("Must specify maxval for integer dtype")
            return self._draw(shape, "uniform",
                              lambda s, st: philox.uniform_int(s, st, int(minval), int(maxval), dtype.np), dtype)
        hi = 1.0 if maxval is None else maxval
        if dtype == dtypes.float64:
            return self._draw(shape, "uniform", lambda s, st: philox.uniform64(s, st, minval, hi), dtype)
        return self._draw(shape, "uniform", lambda s, st: philox.uniform(s, st, minval, hi).astype(dtype.np), dtype)

    def uniform_full_int(self, shape, dtype=None, name=None):
        if dtype is None or getattr(dtype, "name", dtype) == "uint64":
            raise UnsupportedError("tf.random.Generator.uniform_full_int of uint64 (its default dtype) is not "
                                   "supported by Dagscope, which has no uint64 tensors; pass dtype=tf.int64")
        dtype = dtypes.as_dtype(dtype)
        if dtype.name != "int64":
            raise UnsupportedError(f"tf.random.Generator.uniform_full_int of {dtype.name} is not supported by "
                                   "Dagscope (int64 is)")
        return self._draw(shape, "uniform_full_int", lambda s, st: philox.full_int64(s, st), dtype)

    def make_seeds(self, count=1):
        keys = self.uniform_full_int([count], dtype=dtypes.int64).numpy()
        return EagerTensor(np.stack([keys, np.zeros_like(keys)]))

    def split(self, count=1) -> list:
        keys = self.uniform_full_int([count], dtype=dtypes.int64).numpy()
        return [Generator(state=[0, 0, int(k)], alg=self._alg) for k in keys]

    def __repr__(self) -> str:
        return f"<tensorflow.python.ops.stateful_random_ops.Generator object at {id(self):#x}>"


def get_global_generator() -> Generator:
    """The run's global generator, made from a non-deterministic state on first use (as in TensorFlow)."""
    st = context.state()
    if st.global_generator is None:
        st.global_generator = Generator.from_non_deterministic_state()
    return st.global_generator


def set_global_generator(generator) -> None:
    context.state().global_generator = generator


from engine.compat.tensorflow._surface import unsupported_names  # noqa: E402

__getattr__ = unsupported_names("tf.random", globals())
