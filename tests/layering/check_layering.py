#!/usr/bin/env python3
"""Checks that the libraries of sortie depend on each other one way only (LLVM's "Library
Layering"): a folder is a library, and a library may include the headers of, and link, only the
libraries below it:

    cli -> ui -> xm -> runner -> session -> {plugin_host, store} -> model -> registry -> sdk

Each `#include` of a C++ file in a library's folder is resolved to the folder that holds the
header (the includer's own folder first, then every library's folder and include/ directory); each
target a CMakeLists.txt links or embeds is resolved to the folder that defines it. A dependency on
a library that is not below is reported with the file, line and include (or target) that breaks
the order. Headers that no library holds (the standard library, Boost, RapidJSON) are not checked.

A library's public headers are spelled after its folder: every header under FOLDER/include/ is
`sortie/NAME/...` or the library's umbrella `sortie/NAME.hpp` (`sortie/runner.hpp`, `sortie/xm.hpp`),
NAME being the folder's last component; the SDK alone owns the root `sortie/...`. A header spelled
otherwise is reported with its path.

Usage: check_layering.py SOURCE_DIR
"""

import pathlib
import re
import sys

# Each library's folder and the libraries directly below it; what lies below those is allowed too.
LIBRARIES = {
    "sdk": ("sdk", []),
    "registry": ("registry", ["sdk"]),
    "model": ("core/model", ["registry"]),
    "store": ("core/store", ["model"]),
    "plugin_host": ("core/plugin_host", ["model"]),
    "session": ("core/session", ["plugin_host", "store"]),
    "runner": ("core/runner", ["session"]),
    "xm": ("core/xm", ["runner"]),
    "ui": ("core/ui", ["xm"]),
    "cli": ("core/cli", ["ui"]),
    "python": ("python", ["xm"]),
}

SOURCE_SUFFIXES = {".c", ".cc", ".cpp", ".h", ".hpp"}
INCLUDE_LINE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
TARGET_DEFINITION = re.compile(r"\badd_(?:library|executable)\(\s*([\w.:-]+)")
TARGET_USE = re.compile(r"\b(?:target_link_libraries|add_library|add_executable)\(\s*([\w.:-]+)(.*?)\)\s*$",
                        re.S | re.M)


def allowed_below(library):
    """The libraries `library` may depend on: all those below it, transitively."""
    allowed, pending = set(), list(LIBRARIES[library][1])
    while pending:
        lower = pending.pop()
        if lower not in allowed:
            allowed.add(lower)
            pending.extend(LIBRARIES[lower][1])
    return allowed


def library_of(path, root):
    relative = path.relative_to(root).as_posix()
    for name, (folder, _) in LIBRARIES.items():
        if relative == folder or relative.startswith(folder + "/"):
            return name
    return None


def source_files(root, folder):
    return sorted(p for p in (root / folder).rglob("*") if p.suffix in SOURCE_SUFFIXES)


def include_roots(root):
    """Directories an include may be resolved against: each library's include/ and folder."""
    roots = []
    for folder, _ in LIBRARIES.values():
        roots.append(root / folder / "include")
        roots.extend(sorted({p.parent for p in source_files(root, folder)}))
    return roots


def resolve_include(including_file, header, quoted, roots):
    candidates = ([including_file.parent] if quoted else []) + roots
    for directory in candidates:
        path = directory / header
        if path.is_file():
            return path
    return None


def include_problems(root):
    roots = include_roots(root)
    problems = []
    for library, (folder, _) in LIBRARIES.items():
        allowed = allowed_below(library) | {library}
        for path in source_files(root, folder):
            for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                match = INCLUDE_LINE.match(line)
                if not match:
                    continue
                header = resolve_include(path, match.group(2), match.group(1) == '"', roots)
                if header is None:
                    continue
                owner = library_of(header, root)
                if owner is not None and owner not in allowed:
                    problems.append(f"{path.relative_to(root)}:{number}: {line.strip()} "
                                    f"(library {library} includes {owner}, which is not below it)")
    return problems


def header_prefix_problems(root):
    problems = []
    for library, (folder, _) in LIBRARIES.items():
        include = root / folder / "include"
        if library == "sdk" or not include.is_dir():
            continue
        name = pathlib.PurePosixPath(folder).name
        for path in sorted(p for p in include.rglob("*") if p.is_file()):
            spelling = path.relative_to(include).as_posix()
            if not (spelling.startswith(f"sortie/{name}/") or spelling == f"sortie/{name}.hpp"):
                problems.append(f"{path.relative_to(root)}: <{spelling}> does not name its library "
                                f"(headers of {folder} are sortie/{name}/... or sortie/{name}.hpp)")
    return problems


def cmake_files(root, folder):
    return sorted((root / folder).rglob("CMakeLists.txt")) + sorted((root / folder).rglob("*.cmake"))


def cmake_text(path):
    return "\n".join(line.split("#", 1)[0] for line in path.read_text().splitlines())


def link_problems(root):
    owners = {}
    for library, (folder, _) in LIBRARIES.items():
        for path in cmake_files(root, folder):
            for target in TARGET_DEFINITION.findall(cmake_text(path)):
                owners[target] = library
    owners["Sortie::sdk"] = "sdk"
    problems = []
    for library, (folder, _) in LIBRARIES.items():
        allowed = allowed_below(library) | {library}
        for path in cmake_files(root, folder):
            text = cmake_text(path)
            for match in TARGET_USE.finditer(text):
                for used in re.findall(r"[\w.:-]+", match.group(2)):
                    owner = owners.get(used)
                    if owner is not None and owner not in allowed:
                        number = text.count("\n", 0, match.start()) + 1
                        problems.append(f"{path.relative_to(root)}:{number}: {match.group(1)} links "
                                        f"{used} (library {library} uses {owner}, which is not "
                                        "below it)")
    return problems


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    root = pathlib.Path(argv[1]).resolve()
    problems = include_problems(root) + link_problems(root) + header_prefix_problems(root)
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} breaches of the layering rules", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
