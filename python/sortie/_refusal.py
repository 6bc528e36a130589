"""Names of XManager's and TorchX's public API that sortie does not offer: reading one raises
sortie.UnsupportedNameError naming it and what to use instead, never a bare AttributeError.
docs/python.md's compatibility table lists them (tests/python/compat_names_test.py)."""

from typing import Callable, Dict

from sortie import _sortie


class UnsupportedNameError(_sortie.Error, NotImplementedError):
    """A name of XManager's or TorchX's API that sortie refuses. A NotImplementedError (not an
    AttributeError), so `from module import NAME` shows this message, not Python's generic one."""


def refusal(qualified_name: str, instead: str) -> UnsupportedNameError:
    return UnsupportedNameError(f'{qualified_name} is not supported by sortie: {instead}')


def module_getattr(module_name: str, refused: Dict[str, str]) -> Callable[[str], object]:
    """A module's __getattr__ that refuses the names of `refused` (name -> what to use
    instead) and raises AttributeError for any other missing name."""
    def __getattr__(name: str):
        if name in refused:
            raise refusal(f'{module_name}.{name}', refused[name])
        raise AttributeError(f'module {module_name!r} has no attribute {name!r}')
    return __getattr__


def refused_method(qualified_name: str, instead: str):
    """A function or method that refuses itself when called; its `refusal` attribute is the
    error it raises (read by the compatibility table's test)."""
    def method(*_args, **_kwargs):
        raise refusal(qualified_name, instead)
    method.__doc__ = f'Refused: {instead}'
    method.refusal = refusal(qualified_name, instead)
    return method
