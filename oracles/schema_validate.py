"""The case file's JSON Schema validator (jsonschema, Draft 2020-12) with the schema's own
keyword ``claimNumber`` and the error selection of :func:`oracles.schema.read_document`.

Apart from ``oracles.schema`` so that a command reads a case file whose claims all take the
compiled fast path (``oracles.schema_fast``) without importing jsonschema at all: the validator
is asked only about claims that fast path does not pass, and for the envelope of a document
that is not a plain list of claims (issue 26, start-up)."""

from __future__ import annotations

from jsonschema import Draft202012Validator, ValidationError, validators

from .model import NumberError, _hex
from .schema import _json_text, read_claim_number
from .schema_fast import ANNOTATIONS, NUMBER_TYPES

__all__ = ["NumberRead", "Validator", "leaf_errors"]


class NumberRead(ValidationError):
    """Not an error: decimals read into float fields, reported through the validator so that
    they carry the fields' paths. ``entries``: per decimal, ``(path below this error's path, hex
    text of the value read, rounded, short)`` (``rounded`` and ``short`` as in
    :class:`oracles.model.Reading`); an array of numbers reports all its decimals in one. A
    subschema whose only "errors" are these holds."""

    def __init__(self, entries: list):
        super().__init__(f"{len(entries)} decimals read")
        self.entries = entries


def _claim_number(validator, spec, instance, schema):
    if not isinstance(instance, str) and not validator.is_type(instance, "number"):
        return  # "type" reports it
    try:
        read = read_claim_number(instance, spec)
    except NumberError as e:
        yield ValidationError(str(e))
        return
    if read is not None:
        yield NumberRead([((), _hex(read.value, "f64"), read.rounded, read.short)])


def _any_of(validator, any_of, instance, schema):
    """``anyOf`` as jsonschema's, except that a branch whose only "errors" are
    :class:`NumberRead` holds (and its readings are kept: they are the ones that count)."""
    all_errors = []
    for index, subschema in enumerate(any_of):
        errs = list(validator.descend(instance, subschema, schema_path=index))
        if all(isinstance(e, NumberRead) for e in errs):
            yield from errs
            return
        all_errors.extend(errs)
    yield ValidationError(f"{_json_text(instance)} is not valid under any of the given schemas",
                          context=all_errors)


def _items(validator, items, instance, schema):
    """``items``, with arrays of plain claim numbers checked in one loop instead of one
    validator per number (most of a case file is such arrays). Same errors: an item that is a
    string or a number can fail only ``claimNumber``; any other item takes the general path."""
    if (isinstance(instance, list) and isinstance(items, dict)
            and (items.keys() == _PLAIN_NUMBER or items.keys() - ANNOTATIONS == _PLAIN_NUMBER)
            and items["type"] == NUMBER_TYPES and "prefixItems" not in schema):
        spec = items["claimNumber"]
        read: list = []  # the array's decimals, reported as one NumberRead (cheaper to carry up)
        for index, x in enumerate(instance):
            if isinstance(x, str) or validator.is_type(x, "number"):
                for err in _claim_number(validator, spec, x, items):
                    if isinstance(err, NumberRead):
                        read += [((index, *below), *rest) for below, *rest in err.entries]
                        continue
                    err._set(validator="claimNumber", validator_value=spec, instance=x, schema=items)
                    err.schema_path.appendleft("claimNumber")
                    err.path.appendleft(index)
                    yield err
            else:
                yield from validator.descend(x, items, path=index)
        if read:
            yield NumberRead(read)
        return
    yield from _ITEMS(validator, items, instance, schema)


_PLAIN_NUMBER = {"type", "claimNumber"}
_ITEMS = Draft202012Validator.VALIDATORS["items"]
_KEYWORDS = {"claimNumber": _claim_number, "anyOf": _any_of}  # the published schema's meaning
Validator = validators.extend(Draft202012Validator, {**_KEYWORDS, "items": _items})


def leaf_errors(err: ValidationError):
    """The most specific errors: inside ``allOf``/``if-then``/``$ref`` the causes, not the
    wrapper; of an ``anyOf`` that nothing fits, the errors of its best alternative only (one
    bad number is one error, not one per alternative)."""
    if err.context:
        subs = err.context
        if err.validator in ("anyOf", "oneOf"):
            subs = _best_branch(subs)
        for sub in subs:
            yield from leaf_errors(sub)
    elif not isinstance(err, NumberRead):
        yield err


def _best_branch(context: list) -> list:
    """The errors of the alternative the instance came closest to: the one whose errors lie
    deepest in the instance (it matched the most structure), then the one that is not a type
    mismatch of the whole value, then the fewest errors, then the first."""
    branches: dict = {}
    for e in context:
        branches.setdefault(e.relative_schema_path[0] if e.relative_schema_path else 0, []).append(e)

    def score(item):
        index, errs = item
        leaves = [leaf for e in errs for leaf in leaf_errors(e)]
        depth = max((len(leaf.absolute_path) for leaf in leaves), default=0)
        base = min((len(e.absolute_path) for e in errs if not isinstance(e, NumberRead)), default=0)
        mismatch = all(leaf.validator == "type" and len(leaf.absolute_path) == base for leaf in leaves)
        return (-depth, mismatch, len(leaves), index)

    return min(branches.items(), key=score)[1]
