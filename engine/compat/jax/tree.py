"""`jax.tree`: the short names of jax.tree_util (jax.tree.map, jax.tree.leaves ...)."""
from __future__ import annotations

from engine.compat.jax import tree_util
from engine.compat.jax._surface import unsupported_names

map = tree_util.tree_map
leaves = tree_util.tree_leaves
flatten = tree_util.tree_flatten
unflatten = tree_util.tree_unflatten
structure = tree_util.tree_structure
reduce = tree_util.tree_reduce
all = tree_util.tree_all
flatten_with_path = tree_util.tree_flatten_with_path
leaves_with_path = tree_util.tree_leaves_with_path
map_with_path = tree_util.tree_map_with_path
transpose = tree_util.tree_transpose

__getattr__ = unsupported_names("jax.tree", globals())
