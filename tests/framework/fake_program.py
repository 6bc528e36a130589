"""What the fake backends (tests/kubernetes, tests/vertex) make of a container's command, since
they run nothing: whether it fails, and the line it prints."""

import re


def exit_status(command):
    """`false` exits 1 and `sh -c 'exit N'` exits N; anything else succeeds."""
    if command[:1] == ["false"]:
        return 1
    if command[:2] == ["sh", "-c"] and len(command) > 2:
        match = re.fullmatch(r"\s*exit\s+(\d+)\s*", command[2])
        if match:
            return int(match.group(1))
    return 0


def printed_line(command):
    """The line an `echo` command prints, or None."""
    return " ".join(command[1:]) if command[:1] == ["echo"] else None
