# The JAX docs' pytrees page (docs/pytrees.md) beyond tree_map: key paths (tree_flatten_with_path, keystr, the
# *_with_path maps), jax.tree.transpose, and the error for dict keys that do not sort.
import collections
import jax, jax.numpy as jnp
from jax.tree_util import register_pytree_node_class, register_pytree_node
ATuple = collections.namedtuple("ATuple", ('name'))
tree = [1, {'k1': 2, 'k2': (3, 4)}, ATuple('foo'), None]
flattened, treedef = jax.tree_util.tree_flatten_with_path(tree)
for key_path, value in flattened:
  print(f'Value of tree{jax.tree_util.keystr(key_path)}: {value}', repr(key_path))
print(jax.tree_util.keystr(flattened[2][0], simple=True, separator='/'))
print(jax.tree.leaves_with_path({'a': [1., 2.], 'b': 3}))
print(jax.tree.map_with_path(lambda p, x: f"{jax.tree_util.keystr(p)}={x}", {'a': [1, 2], 'b': (3,)}))
print(jax.tree_util.tree_map_with_path(lambda p, x, y: x + y, {'a': 1, 'b': 2}, {'a': 10, 'b': 20}))
@register_pytree_node_class
class Box:
  def __init__(self, a, b): self.a, self.b = a, b
  def tree_flatten(self): return (self.a, self.b), None
  @classmethod
  def tree_unflatten(cls, aux, ch): return cls(*ch)
print([(jax.tree_util.keystr(p), x) for p, x in jax.tree_util.tree_flatten_with_path([Box(1, 2)])[0]])
print(jax.tree.transpose(jax.tree.structure([0, 0]), jax.tree.structure({'t': 0, 'obs': 0}), [dict(t=1, obs=3), dict(t=2, obs=4)]))
print(jax.tree_util.tree_transpose(jax.tree.structure((0, 0, 0)), None, ((1, [2]), (3, [4]), (5, [6]))))
try:
  jax.tree.map(lambda x: x + 1, {1: 7, "y": 42})
except ValueError as e:
  print(type(e).__name__, e)
