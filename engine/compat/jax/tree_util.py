"""`jax.tree_util` (and `jax.tree`): pytrees — nested tuples, lists, dicts (keys sorted), None (a
node with no children) and registered classes; everything else is a leaf."""
from __future__ import annotations

import collections
from collections import namedtuple

from engine.compat.jax._surface import unsupported_names

_REGISTRY: dict = {}        # type -> (flatten(x) -> (children, aux), unflatten(aux, children))
_WITH_KEYS: dict = {}       # type -> flatten_with_keys(x) -> ([(key, child)], aux), where registered


class PyTreeDef:
    """The structure of a pytree with its leaves taken out (`PyTreeDef((*, {'a': *}))`)."""

    __slots__ = ("kind", "aux", "children", "num_leaves")

    def __init__(self, kind, aux, children: tuple):
        self.kind, self.aux, self.children = kind, aux, children
        self.num_leaves = 1 if kind == "leaf" else sum(c.num_leaves for c in children)

    @property
    def num_nodes(self) -> int:
        return 1 + sum(c.num_nodes for c in self.children)

    def unflatten(self, leaves):
        return tree_unflatten(self, leaves)

    def __eq__(self, other) -> bool:
        return isinstance(other, PyTreeDef) and (self.kind, self.aux, self.children) == \
            (other.kind, other.aux, other.children)

    def __hash__(self) -> int:
        return hash((self.kind, repr(self.aux), self.children))

    def _text(self) -> str:
        k = self.kind
        if k == "leaf":
            return "*"
        if k == "none":
            return "None"
        inner = [c._text() for c in self.children]
        if k is tuple:
            return "(" + ", ".join(inner) + ("," if len(inner) == 1 else "") + ")"
        if k is list:
            return "[" + ", ".join(inner) + "]"
        if k is dict:
            return "{" + ", ".join(f"{key!r}: {t}" for key, t in zip(self.aux, inner)) + "}"
        if k == "namedtuple":
            return f"CustomNode(namedtuple[{self.aux.__name__}], [{', '.join(inner)}])"     # as JAX 0.10 prints it
        return f"CustomNode({k[0].__name__}[{self.aux!r}], [{', '.join(inner)}])"

    def __repr__(self) -> str:
        return f"PyTreeDef({self._text()})"


_LEAF = PyTreeDef("leaf", None, ())


def _flatten(x, leaves: list, is_leaf) -> PyTreeDef:
    if is_leaf is not None and is_leaf(x):
        leaves.append(x)
        return _LEAF
    if x is None:
        return PyTreeDef("none", None, ())
    t = type(x)
    if t is tuple or t is list:
        return PyTreeDef(t, None, tuple(_flatten(c, leaves, is_leaf) for c in x))
    if t is dict:
        try:
            keys = sorted(x)
        except TypeError:
            raise ValueError("Comparator raised exception while sorting pytree dictionary keys.") from None
        return PyTreeDef(dict, tuple(keys), tuple(_flatten(x[k], leaves, is_leaf) for k in keys))
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return PyTreeDef("namedtuple", t, tuple(_flatten(c, leaves, is_leaf) for c in x))
    entry = _REGISTRY.get(t)
    if entry is not None:
        children, aux = entry[0](x)
        return PyTreeDef((t,), aux, tuple(_flatten(c, leaves, is_leaf) for c in children))
    leaves.append(x)
    return _LEAF


def tree_flatten(tree, is_leaf=None):
    leaves: list = []
    return leaves, _flatten(tree, leaves, is_leaf)


def tree_leaves(tree, is_leaf=None) -> list:
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree, is_leaf=None) -> PyTreeDef:
    return tree_flatten(tree, is_leaf)[1]


def tree_unflatten(treedef: PyTreeDef, leaves):
    leaves = list(leaves)
    if len(leaves) != treedef.num_leaves:
        raise ValueError(f"Too {'few' if len(leaves) < treedef.num_leaves else 'many'} leaves for PyTreeDef; "
                         f"expected {treedef.num_leaves}, got {len(leaves)}.")
    it = iter(leaves)
    return _build(treedef, it)


def _build(d: PyTreeDef, it):
    k = d.kind
    if k == "leaf":
        return next(it)
    if k == "none":
        return None
    children = [_build(c, it) for c in d.children]
    if k is tuple:
        return tuple(children)
    if k is list:
        return children
    if k is dict:
        return dict(zip(d.aux, children))
    if k == "namedtuple":
        return d.aux(*children)
    return _REGISTRY[k[0]][1](d.aux, children)


def tree_map(f, tree, *rest, is_leaf=None):
    leaves, treedef = tree_flatten(tree, is_leaf)
    others = [_flatten_up_to(treedef, r) for r in rest]
    return tree_unflatten(treedef, [f(*xs) for xs in zip(leaves, *others)])


def _flatten_up_to(treedef: PyTreeDef, tree) -> list:
    """The leaves of `tree` at `treedef`'s leaf positions (a subtree there is one leaf)."""
    out: list = []

    def walk(d: PyTreeDef, x):
        if d.kind == "leaf":
            out.append(x)
            return
        if d.kind == "none":
            if x is not None:
                raise ValueError(f"Custom node type mismatch; expected None, but got {x!r}.")
            return
        if d.kind is dict:
            if not isinstance(x, dict) or sorted(x) != list(d.aux):
                raise ValueError(f"Dict key mismatch; expected keys: {list(d.aux)}; got {x!r}.")
            for key, c in zip(d.aux, d.children):
                walk(c, x[key])
            return
        children = list(x) if d.kind in (tuple, list, "namedtuple") else _REGISTRY[d.kind[0]][0](x)[0]
        if len(children) != len(d.children):
            raise ValueError(f"Tuple arity mismatch: {len(children)} != {len(d.children)}; tuple: {x!r}.")
        for c, y in zip(d.children, children):
            walk(c, y)
    walk(treedef, tree)
    return out


def tree_reduce(function, tree, initializer=None, is_leaf=None):
    import functools       # (only here: the rest of the module needs no functools)
    leaves = tree_leaves(tree, is_leaf)
    return functools.reduce(function, leaves) if initializer is None else \
        functools.reduce(function, leaves, initializer)


def tree_all(tree) -> bool:
    return all(tree_leaves(tree))


_BUILT_IN = (tuple, list, dict, type(None))


def register_pytree_node(nodetype, flatten_func, unflatten_func, flatten_with_keys_func=None,
                         _kind: str = "") -> None:
    if nodetype in _REGISTRY or nodetype in _BUILT_IN:
        raise ValueError(f"Duplicate custom {_kind}PyTreeDef type registration for {nodetype}.")
    _REGISTRY[nodetype] = (flatten_func, unflatten_func)
    if flatten_with_keys_func is not None:
        _WITH_KEYS[nodetype] = flatten_with_keys_func


def register_pytree_node_class(cls):
    register_pytree_node(cls, lambda x: x.tree_flatten(), cls.tree_unflatten)
    return cls


def register_pytree_with_keys(nodetype, flatten_with_keys, unflatten_func, flatten_func=None) -> None:
    """A node whose children have keys (the paths tree_flatten_with_path shows)."""
    if flatten_func is None:
        def flatten_func(x):
            keyed, aux = flatten_with_keys(x)
            return [c for _, c in keyed], aux
    register_pytree_node(nodetype, flatten_func, unflatten_func, flatten_with_keys)


def register_pytree_with_keys_class(cls):
    flatten = (lambda x: x.tree_flatten()) if hasattr(cls, "tree_flatten") else None
    register_pytree_with_keys(cls, lambda x: x.tree_flatten_with_keys(), cls.tree_unflatten, flatten)
    return cls


def register_dataclass(nodetype, data_fields=None, meta_fields=None, drop_fields=()):
    """A dataclass (or a class built like one) as a node: `data_fields` its children, `meta_fields`
    its aux data (static under jit: part of the treedef), rebuilt by calling the class with both as
    keywords. Without the field lists, a dataclass's fields are data unless their metadata says
    static=True. JAX's checks and messages (jax/_src/tree_util.py, 0.10)."""
    import dataclasses     # (only here: the rest of the module needs no dataclasses)
    if data_fields is None or meta_fields is None:
        if (data_fields is None) != (meta_fields is None):
            raise TypeError("register_dataclass: data_fields and meta_fields must both be specified"
                            f" when either is specified. Got {data_fields=} {meta_fields=}.")
        if not dataclasses.is_dataclass(nodetype):
            raise TypeError("register_dataclass: data_fields and meta_fields are required when"
                            f" nodetype is not a dataclass. Got {nodetype=}.")
        data_fields = [f.name for f in dataclasses.fields(nodetype) if not f.metadata.get("static", False)]
        meta_fields = [f.name for f in dataclasses.fields(nodetype) if f.metadata.get("static", False)]
    meta_fields, data_fields = tuple(meta_fields), tuple(data_fields)   # later changes to the lists do not count
    if dataclasses.is_dataclass(nodetype):
        init_fields = {f.name for f in dataclasses.fields(nodetype) if f.init}
        init_fields.difference_update(drop_fields)
        if {*meta_fields, *data_fields} != init_fields:
            msg = "data_fields and meta_fields must include all dataclass fields with ``init=True`` and only them."
            if missing := init_fields - {*meta_fields, *data_fields}:
                msg += f" Missing fields: {missing}. Add them to drop_fields to suppress this error."
            if unexpected := {*meta_fields, *data_fields} - init_fields:
                msg += f" Unexpected fields: {unexpected}."
            raise ValueError(msg)
    if overlap := set(data_fields) & set(meta_fields):
        raise ValueError(f"data_fields and meta_fields must not overlap. Overlapping fields: {overlap}.")

    def flatten(x):
        return tuple(getattr(x, n) for n in data_fields), tuple(getattr(x, n) for n in meta_fields)

    def flatten_with_keys(x):
        return [(GetAttrKey(n), getattr(x, n)) for n in data_fields], tuple(getattr(x, n) for n in meta_fields)

    def unflatten(meta, data):
        return nodetype(**dict(zip(meta_fields, meta)), **dict(zip(data_fields, data)))
    register_pytree_node(nodetype, flatten, unflatten, flatten_with_keys, _kind="dataclass ")
    return nodetype


def register_static(cls):
    """A class whose instances are pytrees with no leaves: the instance itself is the aux data."""
    register_pytree_node(cls, lambda x: ((), x), lambda aux, _: aux)
    return cls


class Partial:
    """`jax.tree_util.Partial`: functools.partial whose arguments are pytree leaves."""

    def __init__(self, func, *args, **kwargs):
        self.func, self.args, self.keywords = func, args, kwargs

    def __call__(self, *args, **kwargs):
        return self.func(*self.args, *args, **{**self.keywords, **kwargs})


register_pytree_node(Partial, lambda p: ((p.args, p.keywords), p.func),
                     lambda func, children: Partial(func, *children[0], **children[1]))

# ---- key paths: where each leaf sits (tree_flatten_with_path, keystr) ----------------------------

class SequenceKey(namedtuple("SequenceKey", "idx")):
    def __str__(self) -> str:
        return f"[{self.idx!r}]"


class DictKey(namedtuple("DictKey", "key")):
    def __str__(self) -> str:
        return f"[{self.key!r}]"


class GetAttrKey(namedtuple("GetAttrKey", "name")):
    def __str__(self) -> str:
        return f".{self.name}"


class FlattenedIndexKey(namedtuple("FlattenedIndexKey", "key")):
    def __str__(self) -> str:
        return f"[<flat index {self.key}>]"


def _keyed_children(d: PyTreeDef, x) -> list:
    """(key, child) of a node `x` of kind `d`, as JAX names them."""
    k = d.kind
    if k is tuple or k is list:
        return [(SequenceKey(i), c) for i, c in enumerate(x)]
    if k is dict:
        return [(DictKey(key), x[key]) for key in d.aux]
    if k == "namedtuple":
        return [(GetAttrKey(f), getattr(x, f)) for f in d.aux._fields]
    if k[0] in _WITH_KEYS:
        return list(_WITH_KEYS[k[0]](x)[0])
    return [(FlattenedIndexKey(i), c) for i, c in enumerate(_REGISTRY[k[0]][0](x)[0])]


def tree_flatten_with_path(tree, is_leaf=None):
    """([(key path, leaf)], treedef)."""
    leaves, treedef = tree_flatten(tree, is_leaf)
    paths: list = []

    def walk(d: PyTreeDef, x, path: tuple):
        if d.kind == "leaf":
            paths.append(path)
        elif d.kind != "none":
            for c, (key, child) in zip(d.children, _keyed_children(d, x)):
                walk(c, child, path + (key,))
    walk(treedef, tree, ())
    return list(zip(paths, leaves)), treedef


def tree_leaves_with_path(tree, is_leaf=None) -> list:
    return tree_flatten_with_path(tree, is_leaf)[0]


def tree_map_with_path(f, tree, *rest, is_leaf=None):
    pairs, treedef = tree_flatten_with_path(tree, is_leaf)
    others = [_flatten_up_to(treedef, r) for r in rest]
    return tree_unflatten(treedef, [f(path, x, *xs) for (path, x), *xs in zip(pairs, *others)])


def keystr(keys, *, simple: bool = False, separator: str = "") -> str:
    if simple:
        return separator.join(str(getattr(k, k._fields[0])) for k in keys)
    return separator.join(str(k) for k in keys)


def tree_transpose(outer_treedef: PyTreeDef, inner_treedef: PyTreeDef | None, pytree_to_transpose):
    """A tree of structure outer(inner) as one of structure inner(outer)."""
    outer = _flatten_up_to(outer_treedef, pytree_to_transpose)
    if inner_treedef is None:
        inner_treedef = tree_structure(outer[0])
    columns = [_flatten_up_to(inner_treedef, x) for x in outer]
    if outer_treedef.num_leaves * inner_treedef.num_leaves != sum(len(c) for c in columns):
        raise TypeError(f"Mismatch\n{outer_treedef}\n != \n{inner_treedef}")
    return tree_unflatten(inner_treedef, [tree_unflatten(outer_treedef, list(row)) for row in zip(*columns)])


# OrderedDict keeps its order, defaultdict sorts its keys and keeps its factory (as JAX registers them)
register_pytree_with_keys(collections.OrderedDict,
                          lambda x: (tuple((DictKey(k), x[k]) for k in x), tuple(x)),
                          lambda keys, values: collections.OrderedDict(zip(keys, values)))
register_pytree_with_keys(collections.defaultdict,
                          lambda d: (tuple((DictKey(k), d[k]) for k in sorted(d)), (d.default_factory, tuple(sorted(d)))),
                          lambda aux, values: collections.defaultdict(aux[0], zip(aux[1], values)))


__getattr__ = unsupported_names("jax.tree_util", globals())
