# The JAX docs' custom pytrees page: register_dataclass (fields given, or read from the dataclass with static
# metadata), register_pytree_with_keys(_class), register_static, OrderedDict / defaultdict nodes; a dataclass
# under jit (its meta fields static), grad and vmap, its key paths; a NamedTuple's str field refused by jit.
import collections, dataclasses, functools
from dataclasses import dataclass
from typing import Any, NamedTuple
import numpy as np
import jax
import jax.numpy as jnp
from jax.tree_util import GetAttrKey, register_pytree_with_keys, register_pytree_with_keys_class, register_static

@functools.partial(jax.tree_util.register_dataclass, data_fields=['a', 'b', 'c'], meta_fields=['name'])
@dataclass
class MyDataclassContainer(object):
  name: str
  a: Any
  b: Any
  c: Any

print(jax.tree.leaves([
  MyDataclassContainer('apple', 5.3, 1.2, jnp.zeros([4])),
  MyDataclassContainer('banana', np.array([3, 4]), -1., 0.)
]))

class MyOtherContainer(NamedTuple):
  name: str
  a: Any
  b: Any
  c: Any

@jax.jit
def f(x):
  return x.a + x.b
mdc = MyDataclassContainer('mdc', 1, 2, 3)
print(f(mdc))
print(jax.tree.structure(mdc))
print(jax.tree_util.tree_flatten_with_path(mdc))
print(jax.tree.unflatten(jax.tree.structure(mdc), [10, 20, 30]))
try:
  f(MyOtherContainer('moc', 1, 2, 3))
except TypeError as e:
  print(str(e).replace(repr(f.__wrapped__) if hasattr(f, '__wrapped__') else '', '<f>').splitlines()[-1])

@jax.tree_util.register_dataclass
@dataclass
class Params:
  w: Any
  b: Any
  act: str = dataclasses.field(default='tanh', metadata=dict(static=True))

def loss(p, x):
  h = jnp.tanh(x @ p.w + p.b) if p.act == 'tanh' else x @ p.w + p.b
  return jnp.sum(h ** 2)
p = Params(jnp.array([[1., -2.], [0.5, 3.]]), jnp.array([0.1, -0.2]))
x = jnp.array([[1., 2.], [-1., 0.5], [0.3, 0.3]])
print(jax.grad(loss)(p, x))
print(jax.jit(jax.grad(loss))(Params(p.w, p.b, act='linear'), x))
print(jax.vmap(lambda p, x: loss(p, x[None]), in_axes=(None, 0))(p, x))
print(jax.tree.map(lambda v: v * 2, p))
print(jax.tree_util.tree_leaves_with_path(p))
for bad in (dict(data_fields=['w']), dict(data_fields=['w'], meta_fields=['b', 'act']),
            dict(data_fields=['w', 'b', 'act', 'zz'], meta_fields=[]), dict(data_fields=['w', 'b'], meta_fields=['act', 'b'])):
  try:
    jax.tree_util.register_dataclass(Params, **bad)
  except (TypeError, ValueError) as e:
    print(type(e).__name__, e)
class NotADataclass:
  pass
try:
  jax.tree_util.register_dataclass(NotADataclass)
except TypeError as e:
  print(e)

od = collections.OrderedDict([('b', 1.), ('a', 2.)])
print(jax.tree.leaves(od), jax.tree.structure(od))
print(jax.tree.map(lambda v: v * 2, od))
print(jax.tree.leaves(collections.defaultdict(list, {'b': 1., 'a': 2.})))
print(jax.grad(lambda d: d['a'] * d['b'])(od))

class Special:
  def __init__(self, x, y):
    self.x, self.y = x, y
  def __repr__(self):
    return f"Special(x={self.x}, y={self.y})"
register_pytree_with_keys(Special, lambda s: (((GetAttrKey('x'), s.x), (GetAttrKey('y'), s.y)), None),
                          lambda aux, ch: Special(*ch))
print(jax.tree_util.tree_flatten_with_path(Special(1., [2., 3.])))
print(jax.tree.map(lambda v: v + 1, Special(1., [2., 3.])))
print(jax.grad(lambda s: s.x * s.y[0])(Special(1., [2., 3.])))
print(jax.tree_util.keystr(jax.tree_util.tree_leaves_with_path(Special(1., [2., 3.]))[2][0]))

@register_pytree_with_keys_class
class Pair:
  def __init__(self, x, y):
    self.x, self.y = x, y
  def tree_flatten_with_keys(self):
    return (((GetAttrKey('x'), self.x), (GetAttrKey('y'), self.y)), None)
  @classmethod
  def tree_unflatten(cls, aux_data, children):
    return cls(*children)
  def __repr__(self):
    return f"Pair({self.x}, {self.y})"
print(jax.tree_util.tree_leaves_with_path(Pair(1, 2)), jax.tree.structure(Pair(1, 2)))
print(jax.jit(lambda pr: pr.x * pr.y)(Pair(3., 4.)))

@register_static
class Config:
  def __init__(self, n): self.n = n
  def __hash__(self): return hash(self.n)
  def __eq__(self, o): return isinstance(o, Config) and o.n == self.n
  def __repr__(self): return f"Config({self.n})"
print(jax.tree.leaves([1., Config(3)]), jax.tree.structure([1., Config(3)]))
print(jax.jit(lambda c, x: x * c.n)(Config(3), 2.))

# what a pytree class whose __init__ converts its argument meets when JAX rebuilds it with a placeholder
for v in [None, "abc", [1, None]]:
  try:
    jnp.asarray(v)
  except (TypeError, ValueError) as e:
    print(type(e).__name__, e)
