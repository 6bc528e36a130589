"""XManager's SequentialArgs and merge_args: positional and keyword arguments in insertion order.

A later keyword replaces an earlier one in place; positionals are appended. The command-line
words (--k=v, --flag/--noflag, repeated flags for lists) are made by the C++ launch API, so a
Python launch and an experiment file give the same words (docs/experiments.md XF-10)."""

import collections.abc

# A job's args: a mapping (keywords), a sequence (positionals) or a SequentialArgs.
UserArgs = object


class SequentialArgs:
    """Arguments in order: items are (name, value) with name None for a positional item."""

    def __init__(self):
        self._items = []

    @staticmethod
    def from_collection(collection):
        if isinstance(collection, SequentialArgs):
            return collection
        args = SequentialArgs()
        if collection is None:
            return args
        if isinstance(collection, collections.abc.Mapping):
            for name, value in collection.items():
                args._set(str(name), value)
        elif isinstance(collection, (str, bytes)) or not isinstance(
                collection, collections.abc.Iterable):
            raise TypeError(f'args must be a mapping or a list, got {type(collection).__name__}: '
                            f'{collection!r}')
        else:
            for value in collection:
                args._items.append((None, value))
        return args

    def _set(self, name, value):
        for index, (existing, _) in enumerate(self._items):
            if existing == name:
                self._items[index] = (name, value)
                return
        self._items.append((name, value))

    def _merge(self, later):
        for name, value in later._items:
            if name is None:
                self._items.append((None, value))
            else:
                self._set(name, value)

    def items(self):
        """(name or None, value) pairs in order: what the compiled module takes."""
        return list(self._items)

    def to_dict(self, kwargs_only=False):
        result = {}
        for index, (name, value) in enumerate(self._items):
            if name is not None:
                result[name] = value
            elif not kwargs_only:
                result[str(index)] = value
        return result

    def __eq__(self, other):
        return isinstance(other, SequentialArgs) and self._items == other._items

    def __repr__(self):
        return f'SequentialArgs({self._items!r})'


def merge_args(*operands):
    """One SequentialArgs from several, later keywords overriding earlier ones in place."""
    merged = SequentialArgs()
    for operand in operands:
        merged._merge(SequentialArgs.from_collection(operand))
    return merged
