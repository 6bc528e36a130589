"""Component functions in a Python file, TorchX's custom components: `FILE.py:FUNCTION` names
a function returning a `specs.AppDef`, and its parameters are the component's options
(`--NAME VALUE`, `-N VALUE` for one-letter names, *args the words after them). The file runs
with the sortie-compat path first, so its `from torchx import specs` is sortie's (see
docs/python.md)."""

import argparse
import importlib.util
import inspect
import json
import os
import subprocess
import sys
import tempfile
import typing
from typing import Any, Callable, List

from sortie import compat_path
from sortie import specs

_FILE_SUFFIX = '.py'


def names_file_component(component: str) -> bool:
    path, separator, function = component.rpartition(':')
    return bool(separator and function and path.endswith(_FILE_SUFFIX))


def load(component: str) -> Callable[..., specs.AppDef]:
    """The function FUNCTION of FILE.py, the file imported as a module of its own."""
    path, _, function = component.rpartition(':')
    if not os.path.isfile(path):
        raise FileNotFoundError(f'component {component}: no file {path!r}')
    compat_path.activate()
    module_name = 'sortie_component_' + os.path.splitext(os.path.basename(path))[0]
    module_spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    found = getattr(module, function, None)
    if not callable(found):
        defined = [name for name, value in vars(module).items()
                   if inspect.isfunction(value) and value.__module__ == module_name]
        raise ValueError(f'component {component}: {path} defines no function {function!r} '
                         f'(its functions: {", ".join(defined) or "none"})')
    return found


def _value_type(annotation: Any) -> Any:
    """Optional[X] as X; the annotation itself otherwise."""
    arguments = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
    if typing.get_origin(annotation) is typing.Union and len(arguments) == 1:
        return arguments[0]
    return annotation


def _converter(annotation: Any) -> Callable[[str], Any]:
    kind = _value_type(annotation)
    origin = typing.get_origin(kind)
    if kind is bool:
        return _boolean
    if kind in (int, float):
        return kind
    if origin in (list, typing.List):
        return lambda text: [word for word in text.split(',') if word]
    if origin in (dict, typing.Dict):
        return lambda text: dict(pair.split('=', 1) for pair in text.split(',') if pair)
    return str


def _boolean(text: str) -> bool:
    lowered = text.lower()
    if lowered not in ('true', 'false', '1', '0', 'yes', 'no'):
        raise argparse.ArgumentTypeError(f'{text!r} is not a boolean (True or False)')
    return lowered in ('true', '1', 'yes')


def parser_of(function: Callable[..., specs.AppDef], program: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=program, description=inspect.getdoc(function),
                                     add_help=False)
    parser.add_argument('--help', action='help', help='show the parameters and exit')
    for name, parameter in inspect.signature(function).parameters.items():
        if parameter.kind == parameter.VAR_POSITIONAL:
            parser.add_argument(name, nargs=argparse.REMAINDER)
            continue
        flags = ([f'-{name}'] if len(name) == 1 else []) + [f'--{name}']
        if parameter.default is parameter.empty:
            parser.add_argument(*flags, dest=name, type=_converter(parameter.annotation),
                                required=True)
        else:
            parser.add_argument(*flags, dest=name, type=_converter(parameter.annotation),
                                default=parameter.default)
    return parser


def app_of(component: str, words: List[str]) -> specs.AppDef:
    """The AppDef the component function returns for `words`, parsed against its signature."""
    function = load(component)
    parsed = vars(parser_of(function, f'sortie run {component}').parse_args(words))
    positional, keywords = [], {}
    for name, parameter in inspect.signature(function).parameters.items():
        if parameter.kind == parameter.VAR_POSITIONAL:
            rest = parsed[name] or []
            positional = rest[1:] if rest[:1] == ['--'] else rest
        elif parameter.kind == parameter.POSITIONAL_ONLY:
            positional.append(parsed[name])
        else:
            keywords[name] = parsed[name]
    app = function(*positional, **keywords)
    if not isinstance(app, specs.AppDef):
        raise TypeError(f'component {component} returned {type(app).__name__}, not a '
                        'specs.AppDef')
    return app


def main(argv: List[str]) -> int:
    """`sortie run OWN... FILE.py:FUNCTION ARGS...`, as the CLI hands it over: SORTIE COMPONENT
    N OWN(N words) ARGS... The function's AppDef is written to a spec file that
    `sortie run OWN... --spec FILE` runs (the CLI's options, waits and output are its own)."""
    sortie, component, count = argv[0], argv[1], int(argv[2])
    own, words = argv[3:3 + count], argv[3 + count:]
    try:
        app = app_of(component, words)
    except (OSError, ValueError, TypeError, KeyError) as failure:
        print(f'sortie run {component}: {failure}', file=sys.stderr)
        return 2
    with tempfile.NamedTemporaryFile('w', suffix='.json', prefix='sortie-component-',
                                     delete=False) as spec:
        json.dump(app.spec(), spec)
    try:
        return subprocess.run([sortie, 'run', *own, '--spec', spec.name], check=False).returncode
    finally:
        os.unlink(spec.name)


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
