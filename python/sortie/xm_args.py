"""XManager's SequentialArgs and merge_args: positional and keyword arguments in insertion order.

A later keyword replaces an earlier one in place; positionals are appended. The command-line
words (--k=v, --flag/--noflag, repeated flags for lists) are made by the C++ launch API, so a
Python launch and an experiment file give the same words (docs/experiments.md XF-10)."""

import collections.abc
from typing import Any, Callable, Dict, List

class _StringArgsError(ValueError, TypeError):
    """args given as one string: XManager raises ValueError, sortie raised TypeError."""


def trivial_kwargs_joiner(key: str, value: str) -> str:
    """XManager's default joiner of a keyword argument: --key=value."""
    return f'{key}={value}'


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
        elif isinstance(collection, (str, bytes)):
            raise _StringArgsError(
                f'Tried to construct xm.SequentialArgs from a string: {collection!r}. Wrap it '
                f'in a list: [{collection!r}] to make it a single argument.')
        elif not isinstance(collection, collections.abc.Iterable):
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

    def rewrite_args(self, rewrite: Callable[[str], str]) -> 'SequentialArgs':
        """A copy with rewrite applied to every value that is a str (XManager's)."""
        rewritten = SequentialArgs()
        rewritten._items = [(name, rewrite(value) if isinstance(value, str) else value)
                            for name, value in self._items]
        return rewritten

    def to_list(self, escaper: Callable[[Any], str],
                kwargs_joiner: Callable[[str, str], str] = trivial_kwargs_joiner) -> List[str]:
        """The items as command-line words, as XManager makes them: a keyword is
        kwargs_joiner('--name', value), a bool --name or --noname, None left out, each part
        passed through escaper (str, repr or shlex.quote, say)."""
        words = []
        for name, value in self._items:
            if name is None:
                words.append(escaper(value))
            elif isinstance(value, bool):
                words.append(escaper(f'--{"" if value else "no"}{name}'))
            elif value is not None:
                words.append(kwargs_joiner(escaper(f'--{name}'), escaper(value)))
        return words

    def to_dict(self, kwargs_only: bool = False) -> Dict[str, Any]:
        """Keywords to their values; unless kwargs_only, a positional item is str(item): True,
        as XManager's."""
        return {name if name is not None else str(value): value if name is not None else True
                for name, value in self._items
                if name is not None or not kwargs_only}

    def __eq__(self, other):
        return isinstance(other, SequentialArgs) and self._items == other._items

    def __repr__(self):
        return f"[{', '.join(self.to_list(repr))}]"


def merge_args(*operands):
    """One SequentialArgs from several, later keywords overriding earlier ones in place."""
    merged = SequentialArgs()
    for operand in operands:
        merged._merge(SequentialArgs.from_collection(operand))
    return merged
