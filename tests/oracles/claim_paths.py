"""Walking a claim's JSON one field at a time, for the tests that change a single field and
judge the result (test_casefile's hostile mutations, test_absurd_values)."""

from __future__ import annotations


def paths(x, path: tuple = (), ends_only: bool = False):
    """Every path into ``x`` (dict keys and list items, nodes before what they hold); with
    ``ends_only``, of a list only its first and last item."""
    if isinstance(x, dict):
        for k, v in x.items():
            yield path + (k,)
            yield from paths(v, path + (k,), ends_only)
    elif isinstance(x, list):
        for i in sorted({0, len(x) - 1}) if ends_only and x else range(len(x)):
            yield path + (i,)
            yield from paths(x[i], path + (i,), ends_only)


def leaves(x, path: tuple = (), ends_only: bool = False):
    """``(path, value)`` of every leaf of ``x`` (a value that is neither a dict nor a list)."""
    for p in paths(x, path, ends_only):
        node = x
        for k in p[len(path):]:
            node = node[k]
        if not isinstance(node, (dict, list)):
            yield p, node


def set_at(doc, path: tuple, value) -> None:
    """Set the field at ``path`` of ``doc`` (in place)."""
    d = doc
    for p in path[:-1]:
        d = d[p]
    d[path[-1]] = value
