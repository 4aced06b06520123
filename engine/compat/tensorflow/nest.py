"""`tf.nest`: nested structures of values (lists, tuples, namedtuples, dicts) as flat lists and back.

TensorFlow's order: a dict's values by sorted key, everything else in order. The facade uses it
wherever TF accepts a structure (tf.function results, GradientTape targets and sources, loop
variables of tf.while_loop).
"""
from __future__ import annotations

from engine.compat.tensorflow._surface import unsupported_names

__all__ = ["flatten", "pack_sequence_as", "map_structure"]


def flatten(structure) -> list:
    if isinstance(structure, dict):
        return [x for k in sorted(structure) for x in flatten(structure[k])]
    if isinstance(structure, (list, tuple)):
        return [x for s in structure for x in flatten(s)]
    return [structure]


def pack_like(structure, flat: list):
    """`flat`'s values in `structure`'s shape (tf.nest.pack_sequence_as)."""
    it = iter(flat)

    def build(s):
        if isinstance(s, dict):
            packed = {k: build(s[k]) for k in sorted(s)}
            return type(s)((k, packed[k]) for k in s)
        if isinstance(s, tuple) and hasattr(s, "_fields"):
            return type(s)(*(build(x) for x in s))
        if isinstance(s, (list, tuple)):
            return type(s)(build(x) for x in s)
        return next(it)
    return build(structure)


def pack_sequence_as(structure, flat_sequence, expand_composites=False):
    flat = list(flat_sequence)
    if len(flat) != len(flatten(structure)):
        raise ValueError(f"Could not pack sequence. Structure had {len(flatten(structure))} atoms, but "
                         f"flat_sequence had {len(flat)} items.")
    return pack_like(structure, flat)


def map_structure(func, *structure, **kwargs):
    flats = [flatten(s) for s in structure]
    if len({len(f) for f in flats}) > 1:
        raise ValueError("The two structures don't have the same nested structure.")
    return pack_like(structure[0], [func(*xs) for xs in zip(*flats)])


__getattr__ = unsupported_names("tf.nest", globals())
